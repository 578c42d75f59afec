import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import { z } from 'zod';
import { requireSession, sessionOf, type SessionAccess } from './session-auth';
import { clearSessionCookie } from './session-cookie';
import { signIn } from './sign-in';
import { signOut } from './sign-out';
import { stepUp } from './step-up';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, PasskeysClient, TotpClient } from '../service-clients';
import { userSchema } from '../account-view/user-schema';
import { loginBody, reauthenticateBody, reauthenticatedSchema, sessionIdParams, sessionListSchema, totpChallengeSchema } from './session-schemas';
import { noContent, problemResponses } from '../http/problem-schema';

/** What the session routes use. */
export type SessionRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  readonly passkeys: PasskeysClient;
  readonly limits: CredentialLimits;
};

/** Sessions: signing in with a password and out, the caller's sessions, and ending one of them. */
export function sessionRoutes(deps: SessionRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['sessions'];
    const authenticationTags = ['authentication'];

    app.post(
      '/v0/auth/login',
      {
        schema: {
          tags: authenticationTags,
          summary: 'Sign in with email and password; sets the session cookie.',
          body: loginBody,
          response: { 200: z.union([userSchema, totpChallengeSchema]), ...problemResponses(400, 401, 403, 429, 503) },
        },
        preHandler: deps.limits.perClientIp,
      },
      async (request, reply) => {
        const { email, password } = request.body;
        const { user } = await deps.limits.checkPassword(email, request, () =>
          deps.identity.authenticatePassword({ email, password }, request.ctx),
        );
        return signIn(deps, request, reply, user!, 'pwd');
      },
    );

    app.post(
      '/v0/auth/logout',
      {
        schema: { tags: authenticationTags, summary: 'End the current session and clear the cookie.', response: { ...noContent, ...problemResponses(401, 503) } },
        onRequest: session,
      },
      async (request, reply) => {
        await signOut(deps.sessions, sessionOf(request), request.ctx);
        clearSessionCookie(reply, deps.cookie);
        return reply.code(204).send(null);
      },
    );


    app.post(
      '/v0/auth/reauthenticate',
      {
        schema: {
          tags: authenticationTags,
          summary:
            'Prove again who you are, as strongly as a sign-in: the password (with a TOTP or backup code when TOTP is on), a code after a provider re-authentication, or a passkey. Privileged changes need a recent proof.',
          body: reauthenticateBody,
          response: { 200: reauthenticatedSchema, ...problemResponses(400, 401, 429, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { password, code, backup_code: backupCode, passkey } = request.body;
        const at = await stepUp(deps, request, reply, sessionOf(request), { password, code, backupCode, passkey });
        return { reauthenticated_at: new Date(at).toISOString() };
      },
    );

    app.get(
      '/v0/auth/sessions',
      {
        schema: {
          tags,
          summary: 'Live sessions of the signed-in account, newest first.',
          response: { 200: sessionListSchema, ...problemResponses(401, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const current = sessionOf(request);
        const sessions = await deps.sessions.list(current.userId, () => request.ctx);
        return {
          items: sessions.map((s) => ({
            id: s.publicId,
            created_at: new Date(s.createdAt).toISOString(),
            last_seen_at: new Date(s.lastSeenAt).toISOString(),
            expires_at: new Date(Math.min(s.expiresAt, s.maxExpiresAt)).toISOString(),
            user_agent: s.userAgent,
            ip: s.ip,
            current: s.publicId === current.publicId,
          })),
        };
      },
    );

    app.delete(
      '/v0/auth/sessions/:id',
      {
        schema: {
          tags,
          summary: 'End one of the caller’s own sessions.',
          params: sessionIdParams,
          response: { ...noContent, ...problemResponses(400, 401, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const deleted = await deps.sessions.deleteByPublicId(sessionOf(request).userId, request.params.id, 'session_revoked', request.ctx);
        if (!deleted) throw new AppError('session:not_found');
        return reply.code(204).send(null);
      },
    );
  };
}
