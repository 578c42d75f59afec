import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { oauthV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { assertRecentlyAuthenticated, optionalSession, requireRecentAuthentication, requireSession, sessionOf, startSession, type SessionAccess } from '../sessions/session-auth';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, OAuthClient, PasskeysClient, TotpClient } from '../service-clients';
import { signIn } from '../sessions/sign-in';
import { signInMethods } from '../sessions/session-store';
import { oauthBrowserBinding } from '../http/browser-binding';
import { providerFromPath, providerName } from './oauth-providers';
import { userSchema } from '../account-view/user-schema';
import {
  authorizationSchema,
  authorizeQuery,
  type AuthorizationPurpose,
  completeSignupBody,
  connectionListSchema,
  providerListSchema,
  connectionSchema,
  oauthLoginSchema,
  providerCallbackBody,
  providerParams,
  unlinkBody,
} from './oauth-schemas';
import { noContent, problemResponses } from '../http/problem-schema';
import { userView } from '../account-view/user-view';
import { sessionAccountView } from '../sessions/session-profile';
import { reauthenticatedSchema } from '../sessions/session-schemas';
import { stepUpWithProvider } from '../sessions/step-up';

const purposeMessages: Record<AuthorizationPurpose, oauthV1.AuthorizationPurpose> = {
  login: oauthV1.AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN,
  link: oauthV1.AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK,
  reauthenticate: oauthV1.AuthorizationPurpose.AUTHORIZATION_PURPOSE_REAUTHENTICATE,
};

function connectionView(connection: oauthV1.Connection) {
  return {
    provider: providerName(connection.provider),
    provider_user_id: connection.providerUserId,
    email: connection.email,
    linked_at: (connection.linkedAt ?? new Date(0)).toISOString(),
  };
}

/** What the OAuth routes use. */
export type OAuthRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly oauth: OAuthClient;
  readonly totp: TotpClient;
  /** Whether the account's passkeys still sign in: a change to its ways in needs a multi-factor proof then. */
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/** /v0/auth/oauth and complete-signup: sign-in with Google or GitHub, and linking them. */
export function oauthRoutes(deps: OAuthRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const credentialLimit = deps.limits.perClientIp;
    const tags = ['oauth'];

    app.get(
      '/v0/auth/oauth/:provider/authorize',
      {
        schema: {
          tags,
          summary:
            'The provider’s consent URL; with a session, `purpose=link` adds the provider to the account and `purpose=reauthenticate` proves the user again.',
          params: providerParams,
          querystring: authorizeQuery,
          response: { 200: authorizationSchema, ...problemResponses(400, 401, 403, 404, 429, 502, 503) },
        },
        // Each call stores a state for 10 minutes: it counts like a credential request.
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const provider = providerFromPath(request.params.provider);
        const { purpose } = request.query;
        const current = purpose === 'login' ? undefined : await optionalSession(deps, request);
        if (purpose !== 'login' && !current) throw new AppError('auth:unauthorized');
        // Re-authentication is how a stale session gets fresh; linking needs it fresh already.
        if (purpose === 'link') await assertRecentlyAuthenticated(deps, current!, request);
        const authorization = await deps.oauth.createAuthorization(
          {
            provider,
            purpose: purposeMessages[purpose],
            userId: current?.userId ?? '',
            browserBinding: oauthBrowserBinding.bind(reply, deps.cookie.secure),
          },
          request.ctx,
        );
        return { authorization_url: authorization.authorizationUrl, state: authorization.state };
      },
    );

    app.post(
      '/v0/auth/oauth/:provider/login',
      {
        schema: {
          tags,
          summary: 'Finish a provider sign-in with its code and state: signed in, linked, pending signup, or a TOTP challenge.',
          params: providerParams,
          body: providerCallbackBody,
          response: { 200: oauthLoginSchema, ...problemResponses(400, 403, 404, 409, 429, 502, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const provider = providerFromPath(request.params.provider);
        const browserBinding = oauthBrowserBinding.take(request, reply, deps.cookie.secure);
        const result = await deps.oauth.completeLogin({ provider, ...request.body, browserBinding }, request.ctx);
        if (result.pendingSignup) {
          const pending = result.pendingSignup;
          return {
            status: 'pending_signup' as const,
            pending_token: pending.pendingToken,
            email: pending.email,
            name: pending.name,
            avatar_url: pending.avatarUrl,
          };
        }
        const { user, linkedNow, passwordDropped } = result.signedIn!;
        // Linked by its email to an account whose password predates the address's verification: that password
        // may be a squatter's, so identity dropped it and ended every session opened with it (the mail says how
        // to set a new one). Ended here too, at once.
        if (passwordDropped) await deps.sessions.deleteAllForUser(user!.id, { reason: 'announced_by_identity' }, request.ctx);
        const outcome = await signIn(deps, request, reply, user!, 'fed');
        if ('totp_required' in outcome) return outcome;
        return { status: linkedNow ? ('linked' as const) : ('signed_in' as const), user: outcome };
      },
    );

    app.post(
      '/v0/auth/complete-signup',
      {
        schema: {
          tags,
          summary: 'Create the account of a pending provider sign-up with a chosen handle; sets the session cookie.',
          body: completeSignupBody,
          response: { 201: userSchema, ...problemResponses(400, 409, 429, 503) },
        },
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const { user } = await deps.oauth.completeSignup(
          { pendingToken: request.body.pending_token, handle: request.body.handle },
          request.ctx,
        );
        // A new account: no second factor, no passkey.
        const view = userView(user!, false);
        const methods = signInMethods('fed', false);
        await startSession(deps, request, reply, { userId: user!.id, handle: user!.handle, sessionEpoch: user!.sessionEpoch, methods }, view);
        return reply.code(201).send(view);
      },
    );

    app.post(
      '/v0/auth/oauth/:provider/link',
      {
        schema: {
          tags,
          summary: 'Add the provider identity to the signed-in account, with a code and a `link` state.',
          params: providerParams,
          body: providerCallbackBody,
          response: { 201: connectionSchema, ...problemResponses(400, 401, 403, 404, 409, 429, 502, 503) },
        },
        // A thief's provider account must not become a lasting way in.
        onRequest: [session, requireRecentAuthentication(deps)],
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const provider = providerFromPath(request.params.provider);
        const current = sessionOf(request);
        const browserBinding = oauthBrowserBinding.take(request, reply, deps.cookie.secure);
        const { connection } = await deps.oauth.linkProvider({ userId: current.userId, provider, ...request.body, browserBinding }, request.ctx);
        // A new way in was added, perhaps from a stolen session: every other session ends.
        await deps.sessions.deleteAllForUser(current.userId, { reason: 'provider_linked', keepPublicId: current.publicId }, request.ctx);
        return reply.code(201).send(connectionView(connection!));
      },
    );

    app.post(
      '/v0/auth/oauth/:provider/reauthenticate',
      {
        schema: {
          tags,
          summary:
            'Prove again who you are through a linked provider, with a code and a `reauthenticate` state. With TOTP on it proves the first factor only: 400 auth:second_factor_required, then POST /v0/auth/reauthenticate with a code within 5 minutes.',
          params: providerParams,
          body: providerCallbackBody,
          response: { 200: reauthenticatedSchema, ...problemResponses(400, 401, 404, 429, 502, 503) },
        },
        onRequest: session,
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const provider = providerFromPath(request.params.provider);
        const current = sessionOf(request);
        const browserBinding = oauthBrowserBinding.take(request, reply, deps.cookie.secure);
        const { email } = await sessionAccountView(deps, current, request);
        // Someone else's provider identity is a wrong proof: it counts like a wrong password.
        await deps.limits.checkPassword(email, request, () =>
          deps.oauth.confirmIdentity({ userId: current.userId, provider, ...request.body, browserBinding }, request.ctx),
        );
        const at = await stepUpWithProvider(deps, request, current);
        return { reauthenticated_at: new Date(at).toISOString() };
      },
    );

    app.get(
      '/v0/auth/oauth/providers',
      {
        schema: {
          tags,
          summary: 'The providers sign-in and linking work with here, so that a client offers only those.',
          response: { 200: providerListSchema, ...problemResponses(503) },
        },
      },
      async (request) => {
        const { providers } = await deps.oauth.listProviders({}, request.ctx);
        const ids = providers.map(providerName).filter((id): id is 'google' | 'github' => id === 'google' || id === 'github');
        return { items: ids.map((id) => ({ id })) };
      },
    );

    app.get(
      '/v0/auth/oauth/connections',
      {
        schema: {
          tags,
          summary: 'The providers linked to the signed-in account.',
          response: { 200: connectionListSchema, ...problemResponses(401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { connections } = await deps.oauth.listConnections({ userId: sessionOf(request).userId }, request.ctx);
        return { items: connections.map(connectionView) };
      },
    );

    app.post(
      '/v0/auth/oauth/connections/unlink',
      {
        schema: {
          tags,
          summary: 'Remove a provider from the account after a recent re-authentication; refused for the last way to sign in.',
          body: unlinkBody,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 409, 429, 503) },
        },
        // Taking a way in away is as irreversible as adding one: not with a stolen session alone.
        onRequest: [session, requireRecentAuthentication(deps)],
        preHandler: credentialLimit,
      },
      async (request, reply) => {
        const provider = providerFromPath(request.body.provider);
        const { userId } = sessionOf(request);
        await deps.oauth.unlinkProvider({ userId, provider }, request.ctx);
        return reply.code(204).send(null);
      },
    );
  };
}
