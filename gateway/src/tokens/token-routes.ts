import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { timestamp } from '../http/fields';
import { problemResponses } from '../http/problem-schema';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import { activeOrganizationOf } from '../sessions/session-organization';
import type { OrgsClient } from '../service-clients';
import type { ServiceTokens } from './service-tokens';

const serviceTokenSchema = z.object({ token: z.string(), expires_at: timestamp }).meta({ id: 'ServiceToken' });

/** How long verifiers may cache the key set; a rotation keeps old keys published longer than this. */
const JWKS_MAX_AGE_SECONDS = 300;

/** POST /v0/auth/token and the public keys that verify its tokens (docs/api.md, "Service tokens"). */
export function tokenRoutes(deps: SessionAccess & { readonly tokens: ServiceTokens; readonly orgs: OrgsClient }): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v0/auth/token',
      {
        schema: {
          tags: ['authentication'],
          summary:
            'A short-lived JWT for the signed-in session, for services that verify requests locally against /.well-known/jwks.json; with the organisation the session acts for, its org_* claims as the membership stands now.',
          response: { 200: serviceTokenSchema, ...problemResponses(401, 503) },
        },
        onRequest: requireSession(deps),
      },
      async (request) => {
        const session = sessionOf(request);
        const { token, expiresAt } = deps.tokens.issue(session, await activeOrganizationOf(deps, session, request.ctx));
        return { token, expires_at: expiresAt.toISOString() };
      },
    );

    app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
      void reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      return deps.tokens.jwks();
    });
  };
}
