import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { noContent, problemResponses } from '../http/problem-schema';
import { optionalSession, requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import { isMultiFactor, type Session } from '../sessions/session-store';
import type { OidcClient } from '../service-clients';
import { ACR_MULTI_FACTOR, acrOf } from './authentication-context';
import type { OpenIdProvider } from './openid-provider';
import { sessionClientFor } from './provider-storage';
import {
  clientIdParams,
  deviceVerifiedSchema,
  deviceVerifyBody,
  grantListSchema,
  interactionParams,
  interactionSchema,
  redirectSchema,
} from './oidc-schemas';

export type OidcRoutesDeps = SessionAccess & {
  readonly openId: OpenIdProvider;
  readonly oidc: OidcClient;
  readonly publicAppUrl: string;
};

/** The OpenID scopes the provider knows; anything else a client sent is not shown or granted. */
const knownScopes = new Set(['openid', 'profile', 'email', 'offline_access']);

/** The interaction as the provider keeps it (oidc-provider's Interaction model), as far as these routes read it. */
interface StoredInteraction {
  readonly uid: string;
  readonly exp?: number;
  readonly returnTo: string;
  readonly prompt: { readonly name: string; readonly reasons: readonly string[]; readonly details: Record<string, unknown> };
  readonly params: Record<string, unknown>;
  readonly session?: { readonly accountId?: string };
  readonly grantId?: string;
  readonly deviceCode?: string;
  result?: Record<string, unknown>;
  save(ttl: number): Promise<unknown>;
  destroy(): Promise<void>;
}

/**
 * A device code as the provider reads it when found by its user code, as far
 * as the device routes read it: without its value, which is kept nowhere,
 * so it is never saved back; identity approves or denies it by the user
 * code (oidc.v1 ApproveDeviceCode, DenyDeviceCode).
 */
interface StoredDeviceCode {
  readonly clientId: string;
  readonly params?: Record<string, unknown>;
  readonly isExpired: boolean;
  readonly consumed?: unknown;
  readonly accountId?: string;
  readonly error?: string;
  readonly [field: string]: unknown;
}

/** Whether a device code still waits for its person: live, unused, neither allowed nor refused. */
function isWaiting(code: StoredDeviceCode | undefined): code is StoredDeviceCode {
  return code !== undefined && !code.isExpired && !code.consumed && code.accountId === undefined && code.error === undefined;
}

/** oidc-provider's user-code rule: case and separators do not matter. */
function normalizeUserCode(input: string): string {
  return input.toUpperCase().replace(/\W/g, '');
}

/** The client an interaction is for. */
function clientIdOf(interaction: { readonly params: Record<string, unknown> }): string {
  const clientId = interaction.params['client_id'];
  return typeof clientId === 'string' ? clientId : '';
}

function scopesOf(params: Record<string, unknown>): string[] {
  const scope = typeof params['scope'] === 'string' ? params['scope'] : '';
  return [...new Set(scope.split(' ').filter((name) => knownScopes.has(name)))];
}

/**
 * The OpenID Provider's interaction, driven by the web app (or any client
 * of the API) with the browser's session: what a sign-in request asks,
 * confirming or denying it, the applications a user allowed, and the
 * device flow's user code (docs/api.md, "OpenID Provider").
 */
export function oidcRoutes(deps: OidcRoutesDeps): FastifyPluginAsyncZod {
  const { provider, clients } = deps.openId;
  const Interaction = provider.Interaction as unknown as { find(uid: string): Promise<StoredInteraction | undefined> };
  const DeviceCode = provider.DeviceCode as unknown as { findByUserCode(code: string): Promise<StoredDeviceCode | undefined> };

  async function interactionOf(uid: string): Promise<StoredInteraction> {
    const interaction = await Interaction.find(uid);
    if (!interaction || (interaction.exp !== undefined && interaction.exp * 1000 <= Date.now())) throw new AppError('oidc:interaction_not_found');
    return interaction;
  }

  async function clientNameOf(clientId: string): Promise<string> {
    const metadata = await clients.metadata(clientId);
    return typeof metadata?.['client_name'] === 'string' ? metadata['client_name'] : clientId;
  }

  /** Whether the client asks for a multi-factor sign-in that the session has not made. */
  function needsMultiFactor(interaction: StoredInteraction, session: Session): boolean {
    const acrValues = typeof interaction.params['acr_values'] === 'string' ? interaction.params['acr_values'].split(' ') : [];
    return (interaction.prompt.reasons.includes('mfa_required') || acrValues.includes(ACR_MULTI_FACTOR)) && !isMultiFactor(session.methods);
  }

  /** Whether the session must prove itself again before this interaction can be confirmed. */
  async function needsReauthentication(interaction: StoredInteraction, session: Session): Promise<boolean> {
    const { reasons } = interaction.prompt;
    if (reasons.includes('login_prompt')) {
      // A proof newer than the one the session had when the request came (none kept: the request is too old to tell).
      const proven = await deps.openId.proofs.recorded(interaction.uid);
      if (proven === undefined || session.authenticatedAt <= proven) return true;
    }
    const maxAge = Number(interaction.params['max_age']);
    if (reasons.includes('max_age') && Number.isFinite(maxAge) && Date.now() - session.authenticatedAt > maxAge * 1000) return true;
    return needsMultiFactor(interaction, session);
  }

  /** The account's grant for the client, created or extended to the requested scopes. */
  async function grantFor(session: Session, clientId: string, scopes: readonly string[], claims: readonly string[], kept: string | undefined, request: { ctx: RequestContext }) {
    const remembered = kept ?? (await deps.oidc.findUserGrant({ userId: session.userId, clientId }, request.ctx)).grantId;
    let grant = remembered ? await provider.Grant.find(remembered) : undefined;
    if (grant && (grant.accountId !== session.userId || grant.clientId !== clientId)) grant = undefined;
    grant ??= new provider.Grant({ accountId: session.userId, clientId });
    if (scopes.length > 0) grant.addOIDCScope(scopes.join(' '));
    if (claims.length > 0) grant.addOIDCClaims([...claims]);
    return { grant, grantId: await grant.save() };
  }

  async function consented(session: Session | undefined, interaction: StoredInteraction, clientId: string, request: { ctx: RequestContext }): Promise<boolean> {
    const metadata = await clients.metadata(clientId);
    if (metadata?.['first_party'] === true) return true;
    if (!session || interaction.prompt.reasons.includes('consent_prompt')) return false;
    const { grantId } = await deps.oidc.findUserGrant({ userId: session.userId, clientId }, request.ctx);
    const grant = grantId ? await provider.Grant.find(grantId) : undefined;
    if (!grant) return false;
    const granted = new Set((grant.getOIDCScope() ?? '').split(' '));
    return scopesOf(interaction.params).every((scope) => granted.has(scope));
  }

  return async (app) => {
    const session = requireSession(deps);
    const tags = ['oidc'];

    app.get(
      '/v0/oidc/interactions/:uid',
      {
        schema: {
          tags,
          summary: 'What a sign-in request of an application asks: the client, its scopes, whether the browser must sign in or re-authenticate. Works without a session.',
          params: interactionParams,
          response: { 200: interactionSchema, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const interaction = await interactionOf(request.params.uid);
        const current = await optionalSession(deps, request);
        const clientId = clientIdOf(interaction);
        const reauthenticate = current !== undefined && (await needsReauthentication(interaction, current));
        return {
          uid: interaction.uid,
          prompt: current === undefined || reauthenticate ? ('login' as const) : ('consent' as const),
          client: { client_id: clientId, client_name: await clientNameOf(clientId) },
          scopes: scopesOf(interaction.params),
          reauthentication_required: reauthenticate,
          multi_factor_required: current !== undefined && needsMultiFactor(interaction, current),
          consented: await consented(current, interaction, clientId, request),
        };
      },
    );

    app.post(
      '/v0/oidc/interactions/:uid/confirm',
      {
        schema: {
          tags,
          summary: 'Allow the sign-in request as the signed-in user; the browser follows redirect_to back to the authorization endpoint.',
          params: interactionParams,
          response: { 200: redirectSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const current = sessionOf(request);
        const interaction = await interactionOf(request.params.uid);
        if (await needsReauthentication(interaction, current)) throw new AppError('auth:reauthentication_required');
        const clientId = clientIdOf(interaction);
        const scopes = scopesOf(interaction.params);
        if (interaction.deviceCode !== undefined) {
          await approveDeviceCode(interaction, current, clientId, scopes, request);
          await interaction.destroy();
          return { redirect_to: `${deps.publicAppUrl}/device?done=1` };
        }
        const claims = Array.isArray(interaction.prompt.details['missingOIDCClaims']) ? (interaction.prompt.details['missingOIDCClaims'] as string[]) : [];
        const { grantId } = await grantFor(current, clientId, scopes, claims, interaction.grantId, request);
        interaction.result = {
          login: { accountId: current.userId, ts: Math.floor(current.authenticatedAt / 1000), amr: [...current.methods], acr: acrOf(current.methods), remember: true },
          consent: { grantId },
        };
        await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
        return { redirect_to: interaction.returnTo };
      },
    );

    app.post(
      '/v0/oidc/interactions/:uid/deny',
      {
        schema: {
          tags,
          summary: 'Refuse the sign-in request; the client receives error=access_denied.',
          params: interactionParams,
          response: { 200: redirectSchema, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const interaction = await interactionOf(request.params.uid);
        if (interaction.deviceCode !== undefined) {
          await deps.oidc.denyDeviceCode({ userCode: interaction.deviceCode }, request.ctx);
          await interaction.destroy();
          return { redirect_to: `${deps.publicAppUrl}/device?denied=1` };
        }
        interaction.result = { error: 'access_denied', error_description: 'End-User aborted interaction' };
        await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
        return { redirect_to: interaction.returnTo };
      },
    );

    app.post(
      '/v0/oidc/device/verify',
      {
        schema: {
          tags,
          summary: 'Take the code a device shows (device authorization grant); answers the interaction to confirm or deny.',
          body: deviceVerifyBody,
          response: { 200: deviceVerifiedSchema, ...problemResponses(400, 401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const userCode = normalizeUserCode(request.body.user_code);
        const code = await DeviceCode.findByUserCode(userCode);
        if (!isWaiting(code)) throw new AppError('oidc:user_code_invalid');
        const uid = randomInteractionId();
        const interaction = new (provider.Interaction as unknown as new (uid: string, payload: Record<string, unknown>) => StoredInteraction)(uid, {
          returnTo: `${deps.publicAppUrl}/device?done=1`,
          prompt: { name: 'consent', reasons: ['device_flow'], details: {} },
          params: { ...(code.params ?? {}), client_id: code.clientId },
          // The provider's field for the device code; Latchkey's device interactions keep the user code, by which
          // identity approves or denies it, for as long as the code lives: the device code's value is kept nowhere.
          deviceCode: userCode,
          trusted: [],
        });
        await interaction.save(Math.max(1, Math.min(DEVICE_INTERACTION_TTL_SECONDS, remainingSeconds(code))));
        return { uid };
      },
    );

    app.get(
      '/v0/oidc/grants',
      {
        schema: {
          tags,
          summary: 'The applications the signed-in user allowed, newest first.',
          response: { 200: grantListSchema, ...problemResponses(401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { grants } = await deps.oidc.listUserGrants({ userId: sessionOf(request).userId }, request.ctx);
        return {
          items: await Promise.all(
            grants.map(async (grant) => ({
              client_id: grant.clientId,
              client_name: await clientNameOf(grant.clientId),
              scopes: grant.scopes,
              created_at: (grant.createdAt ?? new Date(0)).toISOString(),
            })),
          ),
        };
      },
    );

    app.delete(
      '/v0/oidc/grants/:client_id',
      {
        schema: {
          tags,
          summary: 'Withdraw an application’s access: its refresh and access tokens stop working at once.',
          params: clientIdParams,
          response: { ...noContent, ...problemResponses(400, 401, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.oidc.revokeUserGrants({ userId: sessionOf(request).userId, clientId: request.params.client_id }, request.ctx);
        return reply.code(204).send(null);
      },
    );
  };

  /** What the provider's device flow does once the user approved: the code now answers the device's polling. */
  async function approveDeviceCode(
    interaction: StoredInteraction,
    current: Session,
    clientId: string,
    scopes: readonly string[],
    request: { ctx: RequestContext },
  ): Promise<void> {
    const userCode = interaction.deviceCode!;
    // Checked before the grant is made or extended; identity checks again as it approves, in one transaction.
    if (!isWaiting(await DeviceCode.findByUserCode(userCode))) throw new AppError('oidc:user_code_invalid');
    const { grantId } = await grantFor(current, clientId, scopes, [], undefined, request);
    await deps.oidc.approveDeviceCode(
      {
        userCode,
        userId: current.userId,
        grantId,
        scope: scopes.join(' '),
        // The session that approved the device hears of nothing more, but its end reaches the client (back-channel
        // logout); the device's tokens are not bound to a browser session it never had.
        sessionId: current.publicId,
        amr: [...current.methods],
        acr: acrOf(current.methods),
        authTime: new Date(current.authenticatedAt),
        sessionClient: await sessionClientFor(clients, clientId),
      },
      request.ctx,
    );
  }
}

const DEVICE_INTERACTION_TTL_SECONDS = 10 * 60;

function remainingSeconds(code: StoredDeviceCode): number {
  const exp = typeof code['exp'] === 'number' ? code['exp'] : 0;
  return exp - Math.floor(Date.now() / 1000);
}

function randomInteractionId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '');
}
