import { z } from 'zod';

/**
 * One message to one webhook endpoint (docs/webhooks.md). It carries ids
 * only: on each attempt the worker asks identity for the endpoint's URL and
 * secrets as they are then (webhooks.v1 GetDelivery), so that a changed URL
 * or a rotated secret applies to the retries. The endpoint id lets the
 * worker hold each endpoint to a few deliveries at once before it asks.
 */
export const webhookDeliveryJobSchema = z.object({
  message_id: z.uuid(),
  endpoint_id: z.uuid(),
  /** An administrator's retry: send it even though an attempt succeeded already. */
  again: z.boolean().default(false),
});

export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJobSchema>;
