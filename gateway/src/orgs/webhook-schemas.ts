import { z } from 'zod';
import { timestamp } from '../http/fields';
import { orgIdParams } from './org-schemas';

/**
 * docs/api.md, "Webhooks". The shapes only: which event types exist, what
 * an address may be and who may manage endpoints are identity's rules.
 */

export const webhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()).describe('Event type names (docs/events.md), or `["*"]` for every one.'),
    enabled: z.boolean().describe('False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS.'),
    created_at: timestamp,
    updated_at: timestamp,
    failing_since: timestamp.nullable().describe('Since when every attempt has failed; null while the last one succeeded (or none was made).'),
  })
  .meta({ id: 'WebhookEndpoint' });

const secret = z.string().describe('`whsec_` and base64 of 32 random bytes, for Standard Webhooks libraries. Shown this once.');

export const createdWebhookSchema = webhookSchema.extend({ secret }).meta({ id: 'WebhookEndpointWithSecret' });

export const rotatedWebhookSchema = webhookSchema
  .extend({ secret, previous_secret_expires_at: timestamp.describe('Until then the replaced secret signs too: deliveries carry two signatures.') })
  .meta({ id: 'WebhookEndpointRotated' });

export const webhookListSchema = z.object({ items: z.array(webhookSchema) });

export const webhookParams = orgIdParams.extend({ id: z.uuid('must be a UUID') });

const url = z.string().max(2048).describe('Where deliveries are posted: http or https; in production not an internal address.');
const events = z.array(z.string().max(100)).min(1).max(50).describe('Event type names such as `org.member.added`, or `["*"]`.');
const description = z.string().max(500);

export const createWebhookBody = z.object({ url, events, description: description.default('') });

export const updateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change at least one field' });

export const webhookDeliverySchema = z
  .object({
    id: z.uuid(),
    message_id: z.uuid().describe('The `webhook-id` the endpoint was sent: the same on every attempt of a message.'),
    event_type: z.string().describe('`org.member.added`, …, or `webhook.test`.'),
    status: z.enum(['succeeded', 'failed', 'refused']).describe('`refused`: the address led to an internal network.'),
    response_status: z.number().int().nullable().describe('The HTTP status answered; null when none came in time.'),
    duration_ms: z.number().int(),
    attempted_at: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z.object({ items: z.array(webhookDeliverySchema), next_cursor: z.string().nullable() });

export const webhookDeliveriesQuery = z.object({
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be 1-100').max(100, 'must be 1-100').optional(),
  cursor: z.string().min(1).max(512).optional().describe('Opaque; from next_cursor of the previous page.'),
});

export const webhookMessageParams = webhookParams.extend({ message_id: z.uuid('must be a UUID') });
