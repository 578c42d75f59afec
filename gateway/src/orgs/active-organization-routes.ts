import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '@latchkey/errors';
import { problemResponses } from '../http/problem-schema';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import { activeOrganizationBody, organizationSchema } from './org-schemas';
import { organizationView } from './org-views';

/**
 * PUT /v0/auth/session/org: the organisation this session acts for, which
 * GET /v0/users/me shows and service tokens, session introspection and the
 * OpenID Provider carry (docs/api.md, "Organisations").
 */
export function activeOrganizationRoutes(deps: SessionAccess & { readonly orgs: OrgsClient }): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/v0/auth/session/org',
      {
        schema: {
          tags: ['organisations'],
          summary: 'Make this session act for one of the caller’s organisations, or for none (null).',
          body: activeOrganizationBody,
          response: { 200: organizationSchema.nullable(), ...problemResponses(400, 401, 404, 503) },
        },
        onRequest: requireSession(deps),
      },
      async (request) => {
        const session = sessionOf(request);
        const organizationId = request.body.org_id;
        if (organizationId === null) {
          await deps.sessions.setActiveOrganization(session, undefined);
          return null;
        }
        const { found, organization } = await deps.orgs.getMembership({ userId: session.userId, organization: organizationId }, request.ctx);
        if (!found || !organization) throw new AppError('org:not_found');
        await deps.sessions.setActiveOrganization(session, organization.id);
        return organizationView(organization);
      },
    );
  };
}
