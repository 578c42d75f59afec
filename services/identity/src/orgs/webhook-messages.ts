import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { payloadJson, queueEvent, type EventPayload, type EventType } from '@latchkey/domain-events';
import type { RequestContext } from '@latchkey/grpc-kit';
import { jobSubjects, type WebhookDeliveryJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';

/** The events of an organisation: those webhooks deliver (docs/events.asyncapi.yaml). */
export type OrgEventType = Extract<EventType, `org.${string}`>;

/** What a test delivery carries: no event, only the endpoint it checks (docs/webhooks.md). */
export const WEBHOOK_TEST_TYPE = 'webhook.test';

/** The body of a message, `{type, timestamp, data}` (Standard Webhooks), exactly as signed and sent. */
function messageBody(type: string, data: unknown, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** Queues the job that delivers one message; `again` sends a delivered message once more. */
export async function queueDelivery(db: pg.ClientBase, job: WebhookDeliveryJob, context: Pick<RequestContext, 'requestId'>): Promise<void> {
  await enqueueJob(db, jobSubjects.deliverWebhook, job, context);
}

/**
 * Queues an organisation's domain event and, in the same transaction, a
 * message with its delivery job to each enabled endpoint of the
 * organisation subscribed to the type: a message exists exactly when the
 * change it reports commits (docs/decisions/0006-webhooks.md). Every
 * `org.*` event of identity is queued here, so that no change escapes the
 * organisation's webhooks.
 */
export async function queueOrgEvent<Type extends OrgEventType>(
  db: pg.ClientBase,
  type: Type,
  payload: EventPayload<Type>,
  context: Pick<RequestContext, 'requestId'>,
): Promise<string> {
  const eventId = await queueEvent(db, type, payload, context);
  const body = messageBody(type, payloadJson(type, payload), new Date());
  const { rows } = await db.query<{ id: string; endpoint_id: string }>(
    `INSERT INTO identity.webhook_messages (id, endpoint_id, event_id, type, body)
     SELECT gen_random_uuid(), endpoint.id, $2, $3, $4
       FROM identity.webhook_endpoints endpoint
      WHERE endpoint.organization_id = $1 AND endpoint.enabled AND endpoint.events && ARRAY[$3, '*']::text[]
     ON CONFLICT (endpoint_id, event_id) DO NOTHING
     RETURNING id, endpoint_id`,
    [payload.organizationId, eventId, type, body],
  );
  for (const message of rows) await queueDelivery(db, { message_id: message.id, endpoint_id: message.endpoint_id, again: false }, context);
  return eventId;
}

/** Queues a `webhook.test` message to one endpoint, whatever it subscribes to; answers the message's id. */
export async function queueTestMessage(db: pg.ClientBase, endpoint: { readonly id: string; readonly organizationId: string }, context: Pick<RequestContext, 'requestId'>): Promise<string> {
  const id = randomUUID();
  const body = messageBody(WEBHOOK_TEST_TYPE, { organizationId: endpoint.organizationId, endpointId: endpoint.id }, new Date());
  await db.query('INSERT INTO identity.webhook_messages (id, endpoint_id, event_id, type, body) VALUES ($1, $2, $3, $4, $5)', [
    id,
    endpoint.id,
    randomUUID(),
    WEBHOOK_TEST_TYPE,
    body,
  ]);
  await queueDelivery(db, { message_id: id, endpoint_id: endpoint.id, again: false }, context);
  return id;
}
