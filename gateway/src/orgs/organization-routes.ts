import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { noContent, problemResponses } from '../http/problem-schema';
import type { OrganizationLimits } from '../limits/organization-limits';
import { requireRecentAuthentication, requireSession, sessionOf, type ProofCheck, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import {
  createOrganizationBody,
  organizationListSchema,
  organizationSchema,
  orgIdParams,
  roleBody,
  roleListSchema,
  roleParams,
  rolePermissionsBody,
  roleSchema,
  updateOrganizationBody,
} from './org-schemas';
import { organizationView, roleView } from './org-views';

export type OrganizationRoutesDeps = SessionAccess &
  ProofCheck & {
    readonly orgs: OrgsClient;
    readonly organizationLimits: OrganizationLimits;
  };

/**
 * Organisations and their roles (docs/api.md, "Organisations"). Identity
 * decides who may do what (orgs.v1 takes the acting user): an organisation
 * the caller is not a member of is 404 org:not_found, a call its role does
 * not allow 403 org:forbidden.
 */
export function organizationRoutes(deps: OrganizationRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.post(
      '/v0/orgs',
      {
        schema: {
          tags,
          summary: 'Create an organisation; the caller is its owner. Needs a verified email.',
          body: createOrganizationBody,
          response: { 201: organizationSchema, ...problemResponses(400, 401, 403, 409, 429, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const actorUserId = sessionOf(request).userId;
        await deps.organizationLimits.assertCreateAllowed(actorUserId);
        const { organization } = await deps.orgs.createOrganization({ actorUserId, ...request.body }, request.ctx);
        return reply.code(201).send(organizationView(organization!));
      },
    );

    app.get(
      '/v0/orgs',
      {
        schema: { tags, summary: 'The organisations the caller is a member of.', response: { 200: organizationListSchema, ...problemResponses(401, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { organizations } = await deps.orgs.listOrganizations({ actorUserId: sessionOf(request).userId }, request.ctx);
        return { items: organizations.map(organizationView) };
      },
    );

    app.get(
      '/v0/orgs/:org_id',
      {
        schema: { tags, summary: 'One organisation of the caller’s.', params: orgIdParams, response: { 200: organizationSchema, ...problemResponses(400, 401, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { organization } = await deps.orgs.getOrganization({ actorUserId: sessionOf(request).userId, organization: request.params.org_id }, request.ctx);
        return organizationView(organization!);
      },
    );

    app.patch(
      '/v0/orgs/:org_id',
      {
        schema: {
          tags,
          summary:
            'Rename an organisation, or change its slug (org:update); enforce SSO for the accounts of its verified domains, or stop (sso:manage; 409 org:domain_unverified without a verified domain).',
          params: orgIdParams,
          body: updateOrganizationBody,
          response: { 200: organizationSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const actor = sessionOf(request);
        const { name, slug, sso_enforced: ssoEnforced } = request.body;
        const { organization } = await deps.orgs.updateOrganization(
          { actorUserId: actor.userId, organizationId: request.params.org_id, name, slug, ssoEnforced },
          request.ctx,
        );
        await deps.sessions.forgetProfiles(actor.userId);
        return organizationView(organization!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id',
      {
        schema: {
          tags,
          summary: 'Delete an organisation with its members, roles and invitations (org:delete: owners), after a recent proof of identity.',
          params: orgIdParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: [session, requireRecentAuthentication(deps)],
      },
      async (request, reply) => {
        const actor = sessionOf(request);
        await deps.orgs.deleteOrganization({ actorUserId: actor.userId, organizationId: request.params.org_id }, request.ctx);
        await deps.sessions.forgetProfiles(actor.userId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/orgs/:org_id/roles',
      {
        schema: {
          tags,
          summary: 'Add a custom role (roles:manage). Nobody makes a role with one of Latchkey’s permissions they do not hold.',
          params: orgIdParams,
          body: roleBody,
          response: { 201: roleSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { role } = await deps.orgs.createRole({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, ...request.body }, request.ctx);
        return reply.code(201).send(roleView(role!));
      },
    );

    app.get(
      '/v0/orgs/:org_id/roles',
      {
        schema: {
          tags,
          summary: 'The roles of an organisation: the built-in ones, then the custom ones (members:read).',
          params: orgIdParams,
          response: { 200: roleListSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { roles } = await deps.orgs.listRoles({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return { items: roles.map(roleView) };
      },
    );

    app.get(
      '/v0/orgs/:org_id/roles/:name',
      {
        schema: { tags, summary: 'One role (members:read).', params: roleParams, response: { 200: roleSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { org_id: organizationId, name } = request.params;
        const { role } = await deps.orgs.getRole({ actorUserId: sessionOf(request).userId, organizationId, name }, request.ctx);
        return roleView(role!);
      },
    );

    app.patch(
      '/v0/orgs/:org_id/roles/:name',
      {
        schema: {
          tags,
          summary: 'Replace a custom role’s permissions (roles:manage); built-in roles do not change.',
          params: roleParams,
          body: rolePermissionsBody,
          response: { 200: roleSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { org_id: organizationId, name } = request.params;
        const { role } = await deps.orgs.updateRole({ actorUserId: sessionOf(request).userId, organizationId, name, ...request.body }, request.ctx);
        return roleView(role!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id/roles/:name',
      {
        schema: {
          tags,
          summary: 'Delete a custom role (roles:manage); 409 org:role_in_use while members or pending invitations hold it.',
          params: roleParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { org_id: organizationId, name } = request.params;
        await deps.orgs.deleteRole({ actorUserId: sessionOf(request).userId, organizationId, name }, request.ctx);
        return reply.code(204).send(null);
      },
    );
  };
}
