import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../gateway-deps';
import { limitCredentialRequests } from '../http/credential-limits';
import { requireSession, sessionOf } from '../http/session-auth';
import { registerBody, userSchema } from '../schemas/account-schemas';
import { problemResponses } from '../schemas/problem-schema';
import { userView } from '../user-view';

/** /v0/users: registration and the caller's own account. */
export function accountRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
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
        preHandler: limitCredentialRequests(deps),
      },
      async (request, reply) => {
        const { user } = await deps.identity.registerUser(request.body, { requestId: request.id });
        return reply.code(201).send(userView(user!, false));
      },
    );

    app.get(
      '/v0/users/me',
      {
        schema: {
          tags: ['accounts'],
          summary: 'The signed-in account.',
          response: { 200: userSchema, ...problemResponses(401, 503) },
        },
        preHandler: requireSession(deps),
      },
      async (request) => {
        const { user } = await deps.identity.getUser({ userId: sessionOf(request).userId }, { requestId: request.id });
        return userView(user!, false);
      },
    );
  };
}
