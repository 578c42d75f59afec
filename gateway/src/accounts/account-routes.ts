import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { CredentialLimits } from '../limits/credential-limits';
import type { IdentityClient, PasskeysClient, PostsClient, TotpClient } from '../service-clients';
import { clearSessionCookie } from '../sessions/session-cookie';
import { assertAccountDeletionAllowed } from './account-deletion-proof';
import { meSchema, userSchema } from '../account-view/user-schema';
import { deleteAccountBody, registerBody } from './account-schemas';
import { actionLogPageSchema, pageQuery } from '../posts/post-schemas';
import { noContent, problemResponses } from '../http/problem-schema';
import { userView } from '../account-view/user-view';
import { sessionAccountView } from '../sessions/session-profile';
import { nextCursor } from '../posts/post-view';

/** What the account routes use. */
export type AccountRoutesDeps = SessionAccess & {
  readonly identity: IdentityClient;
  readonly totp: TotpClient;
  /** Whether the account's passkeys still sign in: a change to its ways in needs a multi-factor proof then. */
  readonly passkeys: PasskeysClient;
  readonly posts: PostsClient;
  readonly limits: CredentialLimits;
};

/** /v0/users: registration and the caller's own account. */
export function accountRoutes(deps: AccountRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v0/users',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Register an account; a verification mail is sent. No session is created.',
          body: registerBody,
          response: { 201: userSchema, ...problemResponses(400, 409, 413, 415, 429, 503) },
        },
        preHandler: deps.limits.perClientIp,
      },
      async (request, reply) => {
        const { user } = await deps.identity.registerUser(request.body, request.ctx);
        return reply.code(201).send(userView(user!, false));
      },
    );

    app.get(
      '/v0/users/me',
      {
        schema: {
          tags: ['accounts'],
          summary: 'The signed-in account, with the organisation this session acts for.',
          response: { 200: meSchema, ...problemResponses(401, 503) },
        },
        onRequest: requireSession(deps),
      },
      async (request) => sessionAccountView(deps, sessionOf(request), request),
    );

    app.get(
      '/v0/users/me/action-logs',
      {
        schema: {
          tags: ['accounts'],
          summary: 'What the signed-in account did to posts, newest first.',
          querystring: pageQuery,
          response: { 200: actionLogPageSchema, ...problemResponses(400, 401, 503) },
        },
        onRequest: requireSession(deps),
      },
      async (request) => {
        const page = await deps.posts.listActionLogs(
          { userId: sessionOf(request).userId, limit: request.query.limit, cursor: request.query.cursor ?? '' },
          request.ctx,
        );
        return {
          items: page.items.map((entry) => ({
            id: entry.id,
            action: entry.action as 'post:create' | 'post:edit' | 'post:delete',
            resource_type: 'post' as const,
            resource_id: entry.resourceId,
            created_at: (entry.createdAt ?? new Date(0)).toISOString(),
          })),
          next_cursor: nextCursor(page.nextCursor),
        };
      },
    );

    app.delete(
      '/v0/users/me',
      {
        schema: {
          tags: ['accounts'],
          summary:
            'Delete the account, its sessions, second factor, passkeys, provider links, posts (with their content), memberships and the organisations it alone belongs to. Without a password, after a recent re-authentication. 409 org:last_owner while it is the last owner of an organisation with other members.',
          body: deleteAccountBody,
          response: { ...noContent, ...problemResponses(400, 401, 403, 409, 429, 503) },
        },
        onRequest: requireSession(deps),
      },
      async (request, reply) => {
        const current = sessionOf(request);
        const { userId } = current;
        await assertAccountDeletionAllowed(deps, request, current, request.body ?? {});
        await deps.identity.deleteUser({ userId }, request.ctx);
        // Identity announced the deletion, and with it the end of every session.
        await deps.sessions.deleteAllForUser(userId, { reason: 'announced_by_identity' }, request.ctx);
        clearSessionCookie(reply, deps.cookie);
        return reply.code(204).send(null);
      },
    );
  };
}
