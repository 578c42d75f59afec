import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { noContent, problemResponses } from '../http/problem-schema';
import type { OrganizationLimits } from '../limits/organization-limits';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import { domainBody, domainListSchema, domainParams, domainSchema } from './domain-schemas';
import { orgIdParams } from './org-schemas';
import { domainView } from './org-views';

export type DomainRoutesDeps = SessionAccess & { readonly orgs: OrgsClient; readonly organizationLimits: OrganizationLimits };

/**
 * The domains an organisation claims for enterprise SSO and proves by a
 * DNS TXT record (docs/api.md, "Enterprise SSO"). Identity checks the
 * permission (sso:manage), the domain and the record.
 */
export function domainRoutes(deps: DomainRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.post(
      '/v0/orgs/:org_id/domains',
      {
        schema: {
          tags,
          summary: 'Claim a domain (sso:manage): pending, with the DNS TXT record that proves it. Not a public suffix, not a free-mail domain.',
          params: orgIdParams,
          body: domainBody,
          response: { 201: domainSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { domain } = await deps.orgs.addDomain(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, domain: request.body.domain },
          request.ctx,
        );
        return reply.code(201).send(domainView(domain!));
      },
    );

    app.get(
      '/v0/orgs/:org_id/domains',
      {
        schema: { tags, summary: 'The organisation’s domains, by name (sso:manage).', params: orgIdParams, response: { 200: domainListSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { domains } = await deps.orgs.listDomains({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return { items: domains.map(domainView) };
      },
    );

    app.get(
      '/v0/orgs/:org_id/domains/:domain',
      {
        schema: { tags, summary: 'One domain of the organisation (sso:manage).', params: domainParams, response: { 200: domainSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { org_id: organizationId, domain: name } = request.params;
        const { domain } = await deps.orgs.getDomain({ actorUserId: sessionOf(request).userId, organizationId, domain: name }, request.ctx);
        return domainView(domain!);
      },
    );

    app.post(
      '/v0/orgs/:org_id/domains/:domain/verify',
      {
        schema: {
          tags,
          summary:
            'Verify a domain by its TXT record (sso:manage); 409 org:domain_unverified while the record is missing, 409 org:domain_taken when another organisation verified it. At most RATE_LIMIT_DOMAIN_VERIFICATIONS per account and hour.',
          params: domainParams,
          response: { 200: domainSchema, ...problemResponses(400, 401, 403, 404, 409, 429, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { org_id: organizationId, domain: name } = request.params;
        const actorUserId = sessionOf(request).userId;
        await deps.organizationLimits.assertDomainVerificationAllowed(actorUserId);
        const { domain } = await deps.orgs.verifyDomain({ actorUserId, organizationId, domain: name }, request.ctx);
        return domainView(domain!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id/domains/:domain',
      {
        schema: {
          tags,
          summary: 'Remove a domain (sso:manage). Removing the last verified one turns SSO enforcement off.',
          params: domainParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { org_id: organizationId, domain } = request.params;
        await deps.orgs.removeDomain({ actorUserId: sessionOf(request).userId, organizationId, domain }, request.ctx);
        return reply.code(204).send(null);
      },
    );
  };
}
