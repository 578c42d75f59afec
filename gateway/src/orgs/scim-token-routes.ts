import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { scimV1 } from '@latchkey/contracts';
import { timestamp } from '../http/fields';
import { noContent, problemResponses } from '../http/problem-schema';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { ScimClient } from '../service-clients';
import { orgIdParams } from './org-schemas';

export type ScimTokenRoutesDeps = SessionAccess & { readonly scim: ScimClient };

const tokenSchema = z
  .object({
    id: z.uuid(),
    description: z.string(),
    created_at: timestamp,
    last_used_at: timestamp.nullable().describe('When the identity provider last called with it (to the minute); null if never.'),
  })
  .meta({ id: 'ScimToken' });
const createdTokenSchema = tokenSchema.extend({ token: z.string().describe('The bearer token, shown this once.') }).meta({ id: 'ScimTokenCreated' });
const tokenParams = orgIdParams.extend({ token_id: z.string().max(100) });
const groupParams = orgIdParams.extend({ group_id: z.string().max(100) });
const groupSchema = z
  .object({ id: z.uuid(), display_name: z.string(), role: z.string().nullable().describe('The role its members hold; null when unmapped.') })
  .meta({ id: 'ScimGroup' });

const groupRoleSchema = groupSchema
  .extend({ member_count: z.number().int().describe('Users of the organisation in the group.'), updated_at: timestamp })
  .meta({ id: 'ScimGroupRole' });

function tokenView(token: scimV1.Token): z.output<typeof tokenSchema> {
  return {
    id: token.id,
    description: token.description,
    created_at: (token.createdAt ?? new Date(0)).toISOString(),
    last_used_at: token.lastUsedAt ? token.lastUsedAt.toISOString() : null,
  };
}

/**
 * An organisation's SCIM bearer tokens and the roles of its directory
 * groups (docs/scim.md); identity checks scim:manage.
 */
export function scimTokenRoutes(deps: ScimTokenRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.post(
      '/v0/orgs/:org_id/scim/tokens',
      {
        schema: {
          tags,
          summary: 'Issue a SCIM bearer token (scim:manage); the token is shown once and stored hashed.',
          params: orgIdParams,
          body: z.object({ description: z.string().max(200).default('') }),
          response: { 201: createdTokenSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { token, secret } = await deps.scim.createToken(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, description: request.body.description },
          request.ctx,
        );
        return reply.code(201).send({ ...tokenView(token!), token: secret });
      },
    );

    app.get(
      '/v0/orgs/:org_id/scim/tokens',
      {
        schema: { tags, summary: 'The organisation’s SCIM tokens, without secrets (scim:manage).', params: orgIdParams, response: { 200: z.object({ items: z.array(tokenSchema) }), ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { tokens } = await deps.scim.listTokens({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return { items: tokens.map(tokenView) };
      },
    );

    app.delete(
      '/v0/orgs/:org_id/scim/tokens/:token_id',
      {
        schema: { tags, summary: 'Revoke a SCIM token (scim:manage): calls with it fail at once.', params: tokenParams, response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.scim.revokeToken({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, tokenId: request.params.token_id }, request.ctx);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/v0/orgs/:org_id/scim/groups',
      {
        schema: {
          tags,
          summary: 'The organisation’s SCIM groups with their roles, by name, at most 1,000 (scim:manage).',
          params: orgIdParams,
          response: {
            200: z.object({ items: z.array(groupRoleSchema), truncated: z.boolean().describe('Whether the organisation has more groups than listed.') }),
            ...problemResponses(400, 401, 403, 404, 503),
          },
        },
        onRequest: session,
      },
      async (request) => {
        const { groups, truncated } = await deps.scim.listGroupRoles({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return {
          items: groups.map((group) => ({
            id: group.id,
            display_name: group.displayName,
            role: group.role === '' ? null : group.role,
            member_count: group.memberCount,
            updated_at: (group.updatedAt ?? new Date(0)).toISOString(),
          })),
          truncated,
        };
      },
    );

    app.patch(
      '/v0/orgs/:org_id/scim/groups/:group_id',
      {
        schema: {
          tags,
          summary: 'Map a SCIM group to a role (scim:manage): its SCIM-provisioned members hold it; null unmaps. Not owner.',
          params: groupParams,
          body: z.object({ role: z.string().max(48).nullable() }),
          response: { 200: groupSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { group } = await deps.scim.mapGroupRole(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, groupId: request.params.group_id, role: request.body.role ?? '' },
          request.ctx,
        );
        return { id: group!.id, display_name: group!.displayName, role: group!.role === '' ? null : group!.role };
      },
    );
  };
}
