import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '@latchkey/errors';
import { isDependencyOutage } from '@latchkey/grpc-kit';
import { toAppError } from '../http/problem-details';
import type { OrganizationLimits } from '../limits/organization-limits';
import type { ScimClient } from '../service-clients';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { sendScimError } from './scim-errors';
import { groupResource, listResponse, userResource } from './scim-resources';

export interface ScimRoutesDeps {
  readonly scim: ScimClient;
  readonly organizationLimits: OrganizationLimits;
  /** PUBLIC_APP_URL: resources' meta.location is under {PUBLIC_APP_URL}/scim/v2. */
  readonly publicAppUrl: string;
}

/** ServiceProviderConfig filter.maxResults; identity caps a page at the same. */
const MAX_RESULTS = 200;
const SCIM_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

const idParams = z.object({ id: z.string().max(100) });
const listQuery = z.object({
  filter: z.string().max(2000).optional(),
  startIndex: z.string().regex(/^-?\d{1,9}$/, 'must be an integer').optional(),
  count: z.string().regex(/^-?\d{1,9}$/, 'must be an integer').optional(),
  attributes: z.string().max(2000).optional(),
  excludedAttributes: z.string().max(2000).optional(),
});
const getQuery = listQuery.pick({ attributes: true, excludedAttributes: true });
/** A resource as the identity provider sends it; identity reads its attributes (names in any case). */
const resourceBody = z.record(z.string(), z.unknown());
const patchBody = z.record(z.string(), z.unknown());

/** The bearer token of Authorization; none is scim:unauthorized. */
function bearerOf(request: FastifyRequest): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw new AppError('scim:unauthorized');
  return match[1]!;
}

/** RFC 7644 §3.4.2.4: startIndex below 1 reads as 1, count below 0 as 0 (totals only). */
function pageOf(query: z.infer<typeof listQuery>): { startIndex: number; count: number; countOnly: boolean } {
  const startIndex = query.startIndex === undefined ? 1 : Math.max(1, Number(query.startIndex));
  const count = query.count === undefined ? 0 : Math.max(0, Number(query.count));
  return { startIndex, count: Math.min(count, MAX_RESULTS), countOnly: query.count !== undefined && count === 0 };
}

function excludesMembers(query: { excludedAttributes?: string | undefined }): boolean {
  return (query.excludedAttributes ?? '').split(',').some((name) => name.trim().toLowerCase() === 'members');
}

/** The operations of a PatchOp body, `Operations` in any case, each `{op, path?, value?}`. */
function operationsOf(body: Record<string, unknown>): { op: string; path: string; valueJson: string }[] {
  const key = Object.keys(body).find((name) => name.toLowerCase() === 'operations');
  const operations = key === undefined ? undefined : body[key];
  if (!Array.isArray(operations)) throw new AppError('scim:invalid_syntax', 'A PATCH body needs an Operations list.');
  return operations.map((operation: unknown) => {
    if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) throw new AppError('scim:invalid_syntax', 'Each operation must be an object.');
    const fields = Object.fromEntries(Object.entries(operation).map(([name, value]) => [name.toLowerCase(), value])) as Record<string, unknown>;
    if (typeof fields.op !== 'string') throw new AppError('scim:invalid_syntax', 'Each operation needs an op.');
    if (fields.path !== undefined && typeof fields.path !== 'string') throw new AppError('scim:invalid_syntax', 'An operation path must be a string.');
    return { op: fields.op, path: (fields.path) ?? '', valueJson: fields.value === undefined ? '' : JSON.stringify(fields.value) };
  });
}

/**
 * SCIM 2.0 at {PUBLIC_APP_URL}/scim/v2 (docs/scim.md), outside /v0 as
 * identity providers expect it: a bearer token of an organisation, bodies
 * in application/scim+json or application/json, errors as RFC 7644 §3.12.
 * The routes read the HTTP parts and call identity (scim.v1), whose token
 * alone names the organisation.
 */
export function scimRoutes(deps: ScimRoutesDeps): FastifyPluginAsyncZod {
  return async (root) => {
    // A prefix of its own, so that its not-found answer is a SCIM error too.
    await root.register(scimResources(deps), { prefix: '/scim/v2' });
  };
}

function scimResources(deps: ScimRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const baseUrl = `${deps.publicAppUrl.replace(/\/+$/, '')}/scim/v2`;
    app.addContentTypeParser('application/scim+json', { parseAs: 'string', bodyLimit: SCIM_BODY_LIMIT_BYTES }, app.getDefaultJsonParser('error', 'error'));
    app.setErrorHandler(async (error, request, reply) => {
      if (isDependencyOutage(error)) {
        request.log.warn({ err: error }, 'dependency unavailable');
        return sendScimError(reply, new AppError('service:unavailable'));
      }
      const appError = toAppError(error as Error, request);
      return sendScimError(reply, appError.code === 'validation:invalid_input' ? new AppError('scim:invalid_syntax', appError.message) : appError);
    });
    app.setNotFoundHandler(async (_request, reply) => sendScimError(reply, new AppError('scim:not_found', 'No such SCIM endpoint.')));
    app.addHook('onRequest', async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      await deps.organizationLimits.assertScimAllowed(bearerOf(request));
    });
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode !== 204) void reply.type('application/scim+json');
      return payload;
    });
    const hide = { hide: true } as const;

    app.get('/ServiceProviderConfig', { schema: hide }, async () => serviceProviderConfig(baseUrl, MAX_RESULTS));
    app.get('/ResourceTypes', { schema: hide }, async () => {
      const types = resourceTypes(baseUrl);
      return listResponse(types.length, 1, types);
    });
    app.get('/Schemas', { schema: hide }, async () => {
      const all = schemas(baseUrl);
      return listResponse(all.length, 1, all);
    });

    app.post('/Users', { schema: { ...hide, body: resourceBody } }, async (request, reply) => {
      const { user } = await deps.scim.createUser({ token: bearerOf(request), resourceJson: JSON.stringify(request.body) }, request.ctx);
      return reply.code(201).header('location', `${baseUrl}/Users/${user!.id}`).send(userResource(user!, baseUrl));
    });
    app.get('/Users', { schema: { ...hide, querystring: listQuery } }, async (request) => {
      const page = pageOf(request.query);
      const answer = await deps.scim.listUsers({ token: bearerOf(request), filter: request.query.filter ?? '', ...page }, request.ctx);
      return listResponse(answer.totalResults, answer.startIndex, answer.users.map((user) => userResource(user, baseUrl)));
    });
    app.get('/Users/:id', { schema: { ...hide, params: idParams, querystring: getQuery } }, async (request) => {
      const { user } = await deps.scim.getUser({ token: bearerOf(request), userId: request.params.id }, request.ctx);
      return userResource(user!, baseUrl);
    });
    app.put('/Users/:id', { schema: { ...hide, params: idParams, body: resourceBody } }, async (request) => {
      const { user } = await deps.scim.replaceUser({ token: bearerOf(request), userId: request.params.id, resourceJson: JSON.stringify(request.body) }, request.ctx);
      return userResource(user!, baseUrl);
    });
    app.patch('/Users/:id', { schema: { ...hide, params: idParams, body: patchBody } }, async (request) => {
      const { user } = await deps.scim.patchUser({ token: bearerOf(request), userId: request.params.id, operations: operationsOf(request.body) }, request.ctx);
      return userResource(user!, baseUrl);
    });
    app.delete('/Users/:id', { schema: { ...hide, params: idParams } }, async (request, reply) => {
      await deps.scim.deleteUser({ token: bearerOf(request), userId: request.params.id }, request.ctx);
      return reply.code(204).send();
    });

    app.post('/Groups', { schema: { ...hide, body: resourceBody } }, async (request, reply) => {
      const { group } = await deps.scim.createGroup({ token: bearerOf(request), resourceJson: JSON.stringify(request.body) }, request.ctx);
      return reply.code(201).header('location', `${baseUrl}/Groups/${group!.id}`).send(groupResource(group!, baseUrl, true));
    });
    app.get('/Groups', { schema: { ...hide, querystring: listQuery } }, async (request) => {
      const page = pageOf(request.query);
      const excludeMembers = excludesMembers(request.query);
      const answer = await deps.scim.listGroups({ token: bearerOf(request), filter: request.query.filter ?? '', ...page, excludeMembers }, request.ctx);
      return listResponse(answer.totalResults, answer.startIndex, answer.groups.map((group) => groupResource(group, baseUrl, !excludeMembers)));
    });
    app.get('/Groups/:id', { schema: { ...hide, params: idParams, querystring: getQuery } }, async (request) => {
      const excludeMembers = excludesMembers(request.query);
      const { group } = await deps.scim.getGroup({ token: bearerOf(request), groupId: request.params.id, excludeMembers }, request.ctx);
      return groupResource(group!, baseUrl, !excludeMembers);
    });
    app.patch('/Groups/:id', { schema: { ...hide, params: idParams, body: patchBody } }, async (request, reply) => {
      await deps.scim.patchGroup({ token: bearerOf(request), groupId: request.params.id, operations: operationsOf(request.body) }, request.ctx);
      // RFC 7644 §3.5.2: 204 without attributes asked for; Entra and Okta read either.
      return reply.code(204).send();
    });
    app.delete('/Groups/:id', { schema: { ...hide, params: idParams } }, async (request, reply) => {
      await deps.scim.deleteGroup({ token: bearerOf(request), groupId: request.params.id }, request.ctx);
      return reply.code(204).send();
    });
  };
}
