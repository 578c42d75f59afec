import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import type { GatewayDeps } from '../gateway-deps';
import { requireSession, sessionOf } from '../http/session-auth';
import { sessionIdParams, sessionListSchema } from '../schemas/account-schemas';
import { noContent, problemResponses } from '../schemas/problem-schema';

/** /v0/auth/sessions: the caller's sessions, and ending one of them. */
export function sessionRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['sessions'];

    app.get(
      '/v0/auth/sessions',
      {
        schema: {
          tags,
          summary: 'Live sessions of the signed-in account, newest first.',
          response: { 200: sessionListSchema, ...problemResponses(401, 503) },
        },
        preHandler: session,
      },
      async (request) => {
        const current = sessionOf(request);
        const sessions = await deps.sessions.list(current.userId);
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
        preHandler: session,
      },
      async (request, reply) => {
        const deleted = await deps.sessions.deleteByPublicId(sessionOf(request).userId, request.params.id);
        if (!deleted) throw new AppError('session:not_found');
        return reply.code(204).send(null);
      },
    );
  };
}
