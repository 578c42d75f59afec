import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { noContent, problemResponses } from '../http/problem-schema';
import { optionalSession, requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import { isMultiFactor, type Session } from '../sessions/session-store';
import type { OidcClient, OrgsClient } from '../service-clients';
import type { CredentialLimits } from '../limits/credential-limits';
import { acrOf, requiresMultiFactor } from './authentication-context';
import type { InteractionBinding } from './interaction-binding';
import { INTERACTION_TTL_SECONDS, providerScopes, type OpenIdProvider } from './openid-provider';
import { NOT_A_MEMBER, ORGANIZATION_PARAMETER, organizationClaimsRequest } from './requested-organization';
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
  readonly orgs: OrgsClient;
  readonly limits: CredentialLimits;
  readonly publicAppUrl: string;
};

/** The OpenID scopes the provider knows; anything else a client sent is not shown or granted. */
const knownScopes = new Set(providerScopes);

/**
 * Why the provider may ask for a sign-in that the browser's session can
 * give on this page: no session yet, prompt=login, max_age, a client that
 * requires multi-factor. Any other (an id_token_hint of another account)
 * asks for another account than the one signed in.
 */
const signInReasons = new Set(['no_session', 'login_prompt', 'max_age', 'mfa_required']);

/** The interaction as the provider keeps it (oidc-provider's Interaction model), as far as these routes read it. */
interface StoredInteraction {
  readonly uid: string;
  readonly exp?: number;
  readonly returnTo: string;
  readonly prompt: { readonly name: string; readonly reasons: readonly string[]; readonly details: Record<string, unknown> };
  readonly params: Record<string, unknown>;
  /** The account whose session the request came with, if it came with one. */
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

/** Seconds an interaction has left, for saving it again without extending it. */
function remainingTtl(interaction: StoredInteraction): number {
  return Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000));
}

const interactionNotFound = (): AppError => new AppError('oidc:interaction_not_found');

/**
 * The OpenID Provider's interaction, driven by the web app (or any client
 * of the API) in the browser that started the authorization request: what
 * the request asks, allowing or refusing it, the applications a user
 * allowed, and the device flow's user code (docs/api.md, "OpenID
 * Provider"; docs/security.md, "The OpenID Provider"). Every interaction
 * route answers only the browser bound to the interaction
 * (interaction-binding.ts); another browser gets 404, as if there were none.
 * Allowing records consent and nothing else: the code goes to the account
 * of the Latchkey session the browser holds when the request resumes.
 */
export function oidcRoutes(deps: OidcRoutesDeps): FastifyPluginAsyncZod {
  const { provider, clients, bindings } = deps.openId;
  const Interaction = provider.Interaction as unknown as {
    find(uid: string): Promise<StoredInteraction | undefined>;
    new (uid: string, payload: Record<string, unknown>): StoredInteraction;
  };
  const DeviceCode = provider.DeviceCode as unknown as { findByUserCode(code: string): Promise<StoredDeviceCode | undefined> };

  /**
   * The interaction, when this browser holds its binding and, if the request
   * came with a session, the same account is signed in (or none is).
   */
  async function boundInteraction(request: FastifyRequest, uid: string, current: Session | undefined) {
    const binding = await bindings.heldBy(uid, request.cookies[bindings.cookieName]);
    if (!binding) throw interactionNotFound();
    const interaction = await Interaction.find(uid);
    if (!interaction || (interaction.exp !== undefined && interaction.exp * 1000 <= Date.now())) throw interactionNotFound();
    const named = interaction.session?.accountId;
    if (named !== undefined && current !== undefined && named !== current.userId) throw interactionNotFound();
    return { interaction, binding };
  }

  /** Whether the client asks for a multi-factor sign-in that the session has not made. */
  function needsMultiFactor(interaction: StoredInteraction, metadata: Record<string, unknown> | undefined, session: Session): boolean {
    return requiresMultiFactor(metadata?.['require_mfa'], interaction.params['acr_values']) && !isMultiFactor(session.methods);
  }

  /**
   * Whether the session must prove itself again first: prompt=login asks
   * for a proof newer than the request, max_age for one that recent, and
   * the client's or the request's multi-factor requirement for a second
   * factor. The device flow is held to the same rules.
   */
  function needsReauthentication(interaction: StoredInteraction, binding: InteractionBinding, metadata: Record<string, unknown> | undefined, session: Session): boolean {
    if (interaction.prompt.reasons.includes('login_prompt') && session.authenticatedAt <= binding.provenAt) return true;
    const maxAge = interaction.params['max_age'] === undefined ? Number.NaN : Number(interaction.params['max_age']);
    if (Number.isFinite(maxAge) && Date.now() - session.authenticatedAt > maxAge * 1000) return true;
    return needsMultiFactor(interaction, metadata, session);
  }

  /**
   * Whether the request asks for nothing the user has not allowed: a
   * first-party client, or a grant that covers the scopes without
   * prompt=consent.
   */
  async function consentGiven(session: Session, interaction: StoredInteraction, clientId: string, metadata: Record<string, unknown> | undefined, request: { ctx: RequestContext }) {
    if (metadata?.['first_party'] === true) return true;
    const prompts = typeof interaction.params['prompt'] === 'string' ? interaction.params['prompt'].split(' ') : [];
    if (prompts.includes('consent')) return false;
    if (interaction.prompt.name === 'consent' && interaction.prompt.reasons.some((reason) => reason !== 'op_scopes_missing')) return false;
    const { grantId } = await deps.oidc.findUserGrant({ userId: session.userId, clientId, withGrantAndAccount: false }, request.ctx);
    const grant = grantId ? await provider.Grant.find(grantId) : undefined;
    if (!grant) return false;
    const granted = new Set((grant.getOIDCScope() ?? '').split(' '));
    return scopesOf(interaction.params).every((scope) => granted.has(scope));
  }

  /** The account's grant for the client, created or extended to the requested scopes. */
  async function grantFor(session: Session, clientId: string, scopes: readonly string[], kept: string | undefined, request: { ctx: RequestContext }) {
    const remembered = kept ?? (await deps.oidc.findUserGrant({ userId: session.userId, clientId, withGrantAndAccount: false }, request.ctx)).grantId;
    let grant = remembered ? await provider.Grant.find(remembered) : undefined;
    if (grant && (grant.accountId !== session.userId || grant.clientId !== clientId)) grant = undefined;
    grant ??= new provider.Grant({ accountId: session.userId, clientId });
    if (scopes.length > 0) grant.addOIDCScope(scopes.join(' '));
    return { grant, grantId: await grant.save() };
  }

  /**
   * The id of the organisation the request names (by id or slug), when the
   * account is a member of it: null when it is not, undefined when the
   * request names none.
   */
  async function requestedOrganizationOf(interaction: StoredInteraction, session: Session, request: { ctx: RequestContext }): Promise<string | null | undefined> {
    const reference = interaction.params[ORGANIZATION_PARAMETER];
    if (typeof reference !== 'string') return undefined;
    const { found, organization } = await deps.orgs.getMembership({ userId: session.userId, organization: reference }, request.ctx);
    return found && organization ? organization.id : null;
  }

  /** Ends the request with access_denied: the client hears it at the redirect, a device at its next poll. */
  async function refuse(interaction: StoredInteraction, description: string, request: { ctx: RequestContext }): Promise<{ redirect_to: string }> {
    if (interaction.deviceCode !== undefined) {
      await deps.oidc.denyDeviceCode({ userCode: interaction.deviceCode }, request.ctx);
      await interaction.destroy();
      return { redirect_to: `${deps.publicAppUrl}/device?denied=1` };
    }
    interaction.result = { error: 'access_denied', error_description: description };
    await interaction.save(remainingTtl(interaction));
    return { redirect_to: interaction.returnTo };
  }

  async function clientNameOf(clientId: string): Promise<string> {
    const metadata = await clients.metadata(clientId);
    return typeof metadata?.['client_name'] === 'string' ? metadata['client_name'] : clientId;
  }

  return async (app) => {
    const session = requireSession(deps);
    const tags = ['oidc'];

    app.get(
      '/v0/oidc/interactions/:uid',
      {
        schema: {
          tags,
          summary:
            'What a sign-in request of an application asks: the client, its scopes, whether the browser must sign in or re-authenticate. Only the browser that started the request gets it; works without a session.',
          params: interactionParams,
          response: { 200: interactionSchema, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const current = await optionalSession(deps, request);
        const { interaction, binding } = await boundInteraction(request, request.params.uid, current);
        const clientId = clientIdOf(interaction);
        const metadata = await clients.metadata(clientId);
        const device = interaction.deviceCode !== undefined;
        const reauthenticate = current !== undefined && needsReauthentication(interaction, binding, metadata, current);
        const anotherAccount = interaction.prompt.name === 'login' && interaction.prompt.reasons.some((reason) => !signInReasons.has(reason));
        const prompt = current === undefined || reauthenticate || anotherAccount ? ('login' as const) : ('consent' as const);
        // A device is always shown its consent (RFC 8628, section 5.4): the browser is not what is being signed in.
        const consented = prompt === 'consent' && !device && (await consentGiven(current!, interaction, clientId, metadata, request));
        return {
          uid: interaction.uid,
          prompt,
          client: { client_id: clientId, client_name: await clientNameOf(clientId) },
          scopes: scopesOf(interaction.params),
          reauthentication_required: reauthenticate,
          multi_factor_required: current !== undefined && needsMultiFactor(interaction, metadata, current),
          consented,
          device,
          ...(consented ? { resume_url: interaction.returnTo } : {}),
        };
      },
    );

    app.post(
      '/v0/oidc/interactions/:uid/confirm',
      {
        schema: {
          tags,
          summary:
            'Allow the sign-in request as the signed-in user (the browser that started it only); the browser follows redirect_to back to the authorization endpoint.',
          params: interactionParams,
          response: { 200: redirectSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const current = sessionOf(request);
        const { interaction, binding } = await boundInteraction(request, request.params.uid, current);
        const clientId = clientIdOf(interaction);
        const metadata = await clients.metadata(clientId);
        if (needsReauthentication(interaction, binding, metadata, current)) throw new AppError('auth:reauthentication_required');
        const scopes = scopesOf(interaction.params);
        // A request for an organisation the account is not a member of ends as the provider would end it, with
        // access_denied, and extends no consent; a device is refused (docs/oidc.md, "Organisations").
        const organizationId = await requestedOrganizationOf(interaction, current, request);
        if (organizationId === null) return refuse(interaction, NOT_A_MEMBER, request);
        if (interaction.deviceCode !== undefined) {
          await approveDeviceCode(interaction, current, { clientId, scopes, organizationId }, request);
          await interaction.destroy();
          return { redirect_to: `${deps.publicAppUrl}/device?done=1` };
        }
        const { grantId } = await grantFor(current, clientId, scopes, interaction.grantId, request);
        interaction.result = { consent: { grantId } };
        await interaction.save(remainingTtl(interaction));
        return { redirect_to: interaction.returnTo };
      },
    );

    app.post(
      '/v0/oidc/interactions/:uid/deny',
      {
        schema: {
          tags,
          summary: 'Refuse the sign-in request (the browser that started it only); the client receives error=access_denied.',
          params: interactionParams,
          response: { 200: redirectSchema, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const current = await optionalSession(deps, request);
        const { interaction } = await boundInteraction(request, request.params.uid, current);
        return refuse(interaction, 'End-User aborted interaction', request);
      },
    );

    app.post(
      '/v0/oidc/device/verify',
      {
        schema: {
          tags,
          summary:
            'Take the code a device shows (device authorization grant); answers the interaction in which the user allows or refuses that device. Wrong codes are counted per account and per client address.',
          body: deviceVerifyBody,
          response: { 200: deviceVerifiedSchema, ...problemResponses(400, 401, 429, 503) },
        },
        onRequest: session,
        preHandler: deps.limits.perClientIp,
      },
      async (request, reply) => {
        const current = sessionOf(request);
        const userCode = normalizeUserCode(request.body.user_code);
        const code = await deps.openId.deviceCodeGuesses.check(current.userId, request, () => findWaitingDeviceCode(userCode));
        const uid = randomInteractionId();
        const interaction = new Interaction(uid, {
          returnTo: `${deps.publicAppUrl}/device?done=1`,
          prompt: { name: 'consent', reasons: ['device_flow'], details: {} },
          params: { ...(code.params ?? {}), client_id: code.clientId },
          session: { accountId: current.userId },
          // The provider's field for the device code; Latchkey's device interactions keep the user code, by which
          // identity approves or denies it, for as long as the code lives: the device code's value is kept nowhere.
          deviceCode: userCode,
          trusted: [],
        });
        const ttl = Math.max(1, Math.min(INTERACTION_TTL_SECONDS, remainingSeconds(code)));
        await interaction.save(ttl);
        const secret = bindings.secretIn(request.headers.cookie);
        await bindings.bind(uid, secret, current.authenticatedAt, ttl);
        void reply.setCookie(bindings.cookieName, secret, bindings.cookieOptions(INTERACTION_TTL_SECONDS));
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

  /** The device code a (normalized) user code names, while it waits for its person. */
  async function findWaitingDeviceCode(userCode: string): Promise<StoredDeviceCode> {
    const code = await DeviceCode.findByUserCode(userCode);
    if (!isWaiting(code)) throw new AppError('oidc:user_code_invalid');
    return code;
  }

  /** What the provider's device flow does once the user approved: the code now answers the device's polling. */
  async function approveDeviceCode(
    interaction: StoredInteraction,
    current: Session,
    approval: { readonly clientId: string; readonly scopes: readonly string[]; readonly organizationId: string | undefined },
    request: { ctx: RequestContext },
  ): Promise<void> {
    const { clientId, scopes, organizationId } = approval;
    const userCode = interaction.deviceCode!;
    // Checked before the grant is made or extended; identity checks again as it approves, in one transaction.
    if (!isWaiting(await DeviceCode.findByUserCode(userCode))) throw new AppError('oidc:user_code_invalid');
    const { grantId } = await grantFor(current, clientId, scopes, undefined, request);
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
        claimsJson: organizationId === undefined ? '' : JSON.stringify(organizationClaimsRequest(organizationId)),
      },
      request.ctx,
    );
  }
}

function remainingSeconds(code: StoredDeviceCode): number {
  const exp = typeof code['exp'] === 'number' ? code['exp'] : 0;
  return exp - Math.floor(Date.now() / 1000);
}

function randomInteractionId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '');
}
