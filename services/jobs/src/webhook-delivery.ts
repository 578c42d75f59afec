import { randomInt, randomUUID, type KeyObject } from 'node:crypto';
import { webhooksV1 } from '@latchkey/contracts';
import type { EgressPolicy } from '@latchkey/egress-guard';
import { jobSubjects, webhookDeliveryJobSchema, type WebhookDeliveryJob } from '@latchkey/jobs-contract';
import type { ServiceClient } from '@latchkey/grpc-kit';
import { EndpointSlots } from './endpoint-slots';
import { RetryLater, type JobDefinition } from './job-consumer';
import { attemptWebhook } from './webhook-attempt';
import { WebhookSecrets } from './webhook-secrets';

/** How long a message whose endpoint is busy waits before it asks for a slot again: a moment, spread. */
const BUSY_WAIT_MS = { min: 200, max: 1_000 };
/** What recording an attempt with identity may take after it, within the delivery's budget. */
const RECORDING_MS = 1_000;
/** How long messages wait for WEBHOOK_SEALING_PRIVATE_KEY when it is not set. */
const MISSING_KEY_WAIT_MS = 60_000;

export interface WebhookDeliveryDeps {
  readonly webhooks: ServiceClient<typeof webhooksV1.WebhookDeliveryServiceService>;
  /** WEBHOOK_SEALING_PRIVATE_KEY; without it nothing can be signed, and messages wait for it. */
  readonly privateKey: KeyObject | undefined;
  /** WEBHOOK_RETRY_SCHEDULE_SECONDS in milliseconds: the pause after each failed attempt. */
  readonly retryScheduleMs: readonly number[];
  readonly timeoutMs: number;
  readonly endpointConcurrency: number;
  readonly egress: EgressPolicy;
}

/**
 * Delivers one message to one endpoint (docs/webhooks.md): asks identity
 * for the endpoint's URL and secrets as they are now, signs and sends
 * (attemptWebhook), and records the attempt with identity, which keeps the
 * delivery log and disables an endpoint that fails too long. A failed
 * attempt comes back after the schedule's next pause, counted by the
 * attempts identity recorded, so that a worker's restart or a NATS node's
 * loss neither repeats nor skips a step; once the schedule is spent the
 * message is given up (its attempts stay in the log, where an
 * administrator can send it again). An administrator's retry is one
 * attempt.
 */
export function webhookDeliveryJob(deps: WebhookDeliveryDeps): JobDefinition<WebhookDeliveryJob> {
  const slots = new EndpointSlots(deps.endpointConcurrency);
  const secrets = deps.privateKey && new WebhookSecrets(deps.privateKey);
  return {
    name: 'webhook_delivery',
    subject: jobSubjects.deliverWebhook,
    schema: webhookDeliveryJobSchema,
    // Retried until done: identity or the network being away is no reason to give a message up; the schedule is.
    retries: 'until_done',
    async handle(job, context) {
      if (!secrets) throw new RetryLater(MISSING_KEY_WAIT_MS, 'WEBHOOK_SEALING_PRIVATE_KEY is not set: webhook messages wait for it');
      const release = slots.take(job.endpoint_id);
      if (!release) throw new RetryLater(randomInt(BUSY_WAIT_MS.min, BUSY_WAIT_MS.max), 'the endpoint has as many deliveries under way as it may');
      try {
        const delivery = await deps.webhooks.getDelivery({ messageId: job.message_id, again: job.again }, context);
        switch (delivery.state) {
          case webhooksV1.DeliveryState.DELIVERY_STATE_DUE:
            break;
          case webhooksV1.DeliveryState.DELIVERY_STATE_DELIVERED:
            return 'duplicate';
          default:
            // Its endpoint disabled or gone: nothing is sent to it.
            return 'superseded';
        }
        const attemptedAt = new Date();
        const attempt = await attemptWebhook(
          {
            id: job.message_id,
            url: delivery.url,
            body: delivery.body,
            secrets: delivery.sealedSecrets.map((sealed) => secrets.open(delivery.endpointId, sealed)),
          },
          {
            // An endpoint slower than the budget allows has failed this attempt, and there is still time to say so.
            timeoutMs: Math.max(1, Math.min(deps.timeoutMs, context.deadline - Date.now() - RECORDING_MS)),
            egress: deps.egress,
            signal: context.signal,
            at: attemptedAt,
          },
        );
        const recorded = await deps.webhooks.recordAttempt(
          {
            attemptId: randomUUID(),
            messageId: job.message_id,
            status: attempt.status,
            responseStatus: attempt.responseStatus,
            durationMs: attempt.durationMs,
            attemptedAt,
            problem: attempt.problem ?? '',
          },
          context,
        );
        const logged = { message_id: job.message_id, endpoint_id: job.endpoint_id, status: attempt.status, response_status: attempt.responseStatus, attempts: recorded.attempts };
        if (attempt.status === 'succeeded') {
          context.logger.info(logged, 'webhook message delivered');
          return 'completed';
        }
        context.logger.warn({ ...logged, problem: attempt.problem }, 'webhook attempt failed');
        if (recorded.endpointDisabled || job.again) return 'abandoned';
        const pause = deps.retryScheduleMs[recorded.attempts - 1];
        if (pause === undefined) {
          context.logger.warn(logged, 'webhook message given up: its retries are spent');
          return 'abandoned';
        }
        throw new RetryLater(pause, `attempt ${recorded.attempts} failed`);
      } finally {
        release();
      }
    },
    redactForDeadLetter: (payload) => payload,
  };
}
