import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { accepted, noContent, problemResponses } from '../http/problem-schema';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import { orgIdParams } from './org-schemas';
import { webhookDeliveryView, webhookView } from './org-views';
import {
  createdWebhookSchema,
  createWebhookBody,
  rotatedWebhookSchema,
  updateWebhookBody,
  webhookDeliveriesQuery,
  webhookDeliveryListSchema,
  webhookListSchema,
  webhookMessageParams,
  webhookParams,
  webhookSchema,
} from './webhook-schemas';

export type WebhookRoutesDeps = SessionAccess & { readonly orgs: OrgsClient };

/**
 * An organisation's webhook endpoints (docs/api.md, "Webhooks";
 * docs/decisions/0006-webhooks.md). Identity checks the permission
 * (webhooks:manage), that the endpoint is the organisation's, the event
 * types and the address.
 */
export function webhookRoutes(deps: WebhookRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.post(
      '/v0/orgs/:org_id/webhooks',
      {
        schema: {
          tags,
          summary: 'Register a webhook endpoint (webhooks:manage); the answer holds its secret, shown this once.',
          params: orgIdParams,
          body: createWebhookBody,
          response: { 201: createdWebhookSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { url, events, description } = request.body;
        const created = await deps.orgs.createWebhook(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, url, events, description },
          request.ctx,
        );
        return reply.code(201).send({ ...webhookView(created.webhook!), secret: created.secret });
      },
    );

    app.get(
      '/v0/orgs/:org_id/webhooks',
      {
        schema: { tags, summary: 'The organisation’s webhook endpoints, oldest first (webhooks:manage).', params: orgIdParams, response: { 200: webhookListSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { webhooks } = await deps.orgs.listWebhooks({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id }, request.ctx);
        return { items: webhooks.map(webhookView) };
      },
    );

    app.get(
      '/v0/orgs/:org_id/webhooks/:id',
      {
        schema: { tags, summary: 'One webhook endpoint (webhooks:manage); without its secret.', params: webhookParams, response: { 200: webhookSchema, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request) => {
        const { webhook } = await deps.orgs.getWebhook(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, webhookId: request.params.id },
          request.ctx,
        );
        return webhookView(webhook!);
      },
    );

    app.patch(
      '/v0/orgs/:org_id/webhooks/:id',
      {
        schema: {
          tags,
          summary: 'Change a webhook endpoint’s URL, events, description or whether it is enabled (webhooks:manage).',
          params: webhookParams,
          body: updateWebhookBody,
          response: { 200: webhookSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { url, events, description, enabled } = request.body;
        const { webhook } = await deps.orgs.updateWebhook(
          {
            actorUserId: sessionOf(request).userId,
            organizationId: request.params.org_id,
            webhookId: request.params.id,
            url,
            eventsGiven: events !== undefined,
            events: events ?? [],
            description,
            enabled,
          },
          request.ctx,
        );
        return webhookView(webhook!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id/webhooks/:id',
      {
        schema: { tags, summary: 'Remove a webhook endpoint and its secrets (webhooks:manage).', params: webhookParams, response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) } },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.orgs.deleteWebhook({ actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, webhookId: request.params.id }, request.ctx);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/orgs/:org_id/webhooks/:id/rotate-secret',
      {
        schema: {
          tags,
          summary: 'Give a webhook endpoint a new secret, shown this once (webhooks:manage); the replaced one keeps signing beside it for 24 hours.',
          params: webhookParams,
          response: { 200: rotatedWebhookSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const rotated = await deps.orgs.rotateWebhookSecret(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, webhookId: request.params.id },
          request.ctx,
        );
        return { ...webhookView(rotated.webhook!), secret: rotated.secret, previous_secret_expires_at: (rotated.previousExpiresAt ?? new Date(0)).toISOString() };
      },
    );

    app.get(
      '/v0/orgs/:org_id/webhooks/:id/deliveries',
      {
        schema: {
          tags,
          summary: 'The endpoint’s delivery attempts, newest first (webhooks:manage).',
          params: webhookParams,
          querystring: webhookDeliveriesQuery,
          response: { 200: webhookDeliveryListSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const page = await deps.orgs.listWebhookDeliveries(
          {
            actorUserId: sessionOf(request).userId,
            organizationId: request.params.org_id,
            webhookId: request.params.id,
            limit: request.query.limit ?? 0,
            cursor: request.query.cursor ?? '',
          },
          request.ctx,
        );
        return { items: page.deliveries.map(webhookDeliveryView), next_cursor: page.nextCursor || null };
      },
    );

    app.post(
      '/v0/orgs/:org_id/webhooks/:id/deliveries/:message_id/retry',
      {
        schema: {
          tags,
          summary: 'Send a message the endpoint was sent once more, with the same webhook-id and body (webhooks:manage).',
          params: webhookMessageParams,
          response: { ...accepted, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.orgs.retryWebhookDelivery(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, webhookId: request.params.id, messageId: request.params.message_id },
          request.ctx,
        );
        return reply.code(202).send(null);
      },
    );

    app.post(
      '/v0/orgs/:org_id/webhooks/:id/test',
      {
        schema: {
          tags,
          summary: 'Send the endpoint a `webhook.test` message, whatever events it subscribes to (webhooks:manage).',
          params: webhookParams,
          response: { ...accepted, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        await deps.orgs.sendTestWebhook(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, webhookId: request.params.id },
          request.ctx,
        );
        return reply.code(202).send(null);
      },
    );
  };
}
