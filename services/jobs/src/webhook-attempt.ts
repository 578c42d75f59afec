import { Webhook } from 'standardwebhooks';
import { EgressRefusedError, sendGuarded, type EgressPolicy } from '@latchkey/egress-guard';

/** One message to one endpoint, as the worker sends it on every attempt. */
export interface WebhookMessage {
  /** The message id: the `webhook-id` header, the same on every attempt, so that receivers drop duplicates. */
  readonly id: string;
  readonly url: string;
  /** The JSON body `{type, timestamp, data}`, exactly the bytes that are signed and sent. */
  readonly body: string;
  /**
   * The endpoint's secrets (`whsec_` + base64), the newest first: one, or
   * two while a rotated-out secret keeps signing beside its successor.
   */
  readonly secrets: readonly string[];
}

/** What one attempt came to, as the delivery log keeps it (docs/api.md, "Webhooks"). */
export interface WebhookAttempt {
  /** `succeeded` for a 2xx answer; `failed` for any other answer or none in time; `refused` for an internal address. */
  readonly status: 'succeeded' | 'failed' | 'refused';
  /** The HTTP status the endpoint answered; absent when it answered nothing. */
  readonly responseStatus?: number;
  readonly durationMs: number;
  /** Why it failed without an answer, or why it was refused; never a secret. */
  readonly problem?: string;
}

export interface WebhookAttemptOptions {
  /** WEBHOOK_TIMEOUT_SECONDS in milliseconds: an endpoint that has not answered by then has failed this attempt. */
  readonly timeoutMs: number;
  /** Where an endpoint may lead: in production nowhere inside (docs/api.md, "Webhooks"). */
  readonly egress: EgressPolicy;
  /** The job's own abort (shutdown, its budget). */
  readonly signal?: AbortSignal;
  /** The attempt's time, for `webhook-timestamp`; now unless a test says otherwise. */
  readonly at?: Date;
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,{base64
 * HMAC-SHA256 of "{id}.{timestamp}.{body}"}` for each secret, separated by
 * spaces, so that a receiver holding either secret of a rotation accepts it.
 * Signed by the `standardwebhooks` reference library rather than by hand:
 * receivers verify with the same code.
 */
export function webhookSignature(message: WebhookMessage, at: Date): string {
  return message.secrets.map((secret) => new Webhook(secret).sign(message.id, at, message.body)).join(' ');
}

/**
 * Sends one attempt of a message: signed anew (its timestamp is this
 * attempt's, which receivers check against replay), through the egress
 * guard (the address connected to is the one checked; redirects are
 * answers, not followed), given up after `timeoutMs`. Never throws for
 * what the endpoint does: the caller records the attempt and decides on a
 * retry.
 */
export async function attemptWebhook(message: WebhookMessage, options: WebhookAttemptOptions): Promise<WebhookAttempt> {
  const at = options.at ?? new Date();
  const started = performance.now();
  const durationMs = (): number => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const { status } = await sendGuarded(
      message.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Latchkey-Webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': webhookSignature(message, at),
        },
        body: message.body,
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      },
      options.egress,
    );
    return { status: status >= 200 && status < 300 ? 'succeeded' : 'failed', responseStatus: status, durationMs: durationMs() };
  } catch (error) {
    if (error instanceof EgressRefusedError) return { status: 'refused', durationMs: durationMs(), problem: `the endpoint's address ${error.message}` };
    // The job's own abort is not the endpoint's failure: the job ends and JetStream redelivers it.
    if (options.signal?.aborted) throw error;
    const problem = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    return { status: 'failed', durationMs: durationMs(), problem };
  }
}
