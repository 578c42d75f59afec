import type { webhooksV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { getDelivery, recordAttempt, type WebhookDeliveryLogDeps } from './webhook-delivery-log';

/** webhooks.v1 WebhookDeliveryService, for the jobs worker: one thin function per RPC. */
export function webhookDeliveryHandlers(deps: WebhookDeliveryLogDeps): ServiceHandlers<typeof webhooksV1.WebhookDeliveryServiceService> {
  return {
    async getDelivery(request) {
      return getDelivery(deps.pool, request);
    },
    async recordAttempt(request, context) {
      return recordAttempt(deps, request, context);
    },
  };
}
