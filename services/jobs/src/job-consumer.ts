import { setTimeout as delay } from 'node:timers/promises';
import {
  AckPolicy,
  DeliverPolicy,
  headers as natsHeaders,
  nanos,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
} from 'nats';
import type { z } from 'zod';
import { AppError } from '@latchkey/errors';
import { type JobSubject } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import { startRequestContext, type RequestContext } from '@latchkey/grpc-kit';
import { withExtractedTraceContext, type Logger } from '@latchkey/telemetry';
import type { DeliveryOutcome, JobMetrics } from './job-metrics';
import { retryDelayMs } from './retry-delay';

/** JetStream redelivers a job this long after a worker went silent on it. */
const ACK_WAIT_MS = 30_000;
/** Long handlers tell JetStream they are alive well within the ack wait. */
const WORKING_INTERVAL_MS = ACK_WAIT_MS / 3;
/** Pause before reopening a consumer whose message stream failed. */
const REOPEN_DELAY_MS = 1_000;
/** Headers that carry a job's request id and trace, to the handler and onto a dead letter. */
const TRACE_HEADERS = ['x-request-id', 'traceparent', 'tracestate'] as const;
const MAX_HEADER_LENGTH = 500;

/** What a handler reports when it returns; failing is throwing. */
export type JobOutcome = Extract<DeliveryOutcome, 'completed' | 'duplicate' | 'superseded' | 'refused' | 'abandoned'>;

/**
 * Thrown by a handler that keeps its own schedule (webhook deliveries): the
 * job comes back after `delayMs`, whatever its retry policy and however
 * often it came before.
 */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

/**
 * The request context of one delivery: the request id of the request that
 * queued the job (or the job id), a logger that carries the job name and id
 * (never give it the payload), and the delivery's budget, which service
 * calls hand on.
 */
export interface JobContext extends RequestContext {
  /** The producer's Nats-Msg-Id (the outbox row id): the same on every delivery of the job. */
  readonly jobId: string;
}

/** One kind of job: where it arrives, what its payload is, and how to do it. */
export interface JobDefinition<Payload> {
  /** Names the durable consumer and labels logs and metrics, e.g. `mail`. */
  readonly name: string;
  /** A job subject, or with `stream: 'events'` a domain event's subject (`events.session.revoked`). */
  readonly subject: JobSubject | `events.${string}`;
  /** The stream it reads: the work queue of jobs (default), or the domain events, which outlive their reading. */
  readonly stream?: 'jobs' | 'events';
  readonly schema: z.ZodType<Payload>;
  /** Must be idempotent: JetStream delivers at least once. */
  handle(payload: Payload, context: JobContext): Promise<JobOutcome>;
  /** The parsed JSON payload as it may be kept on the dead-letter stream, without secrets. */
  redactForDeadLetter(payload: unknown): unknown;
  /** How long a failing job is retried before it is parked: see RetryPolicy; `deliveries` unless said. */
  readonly retries?: RetryPolicy;
}

/**
 * How long a failing job is retried, with the capped backoff of
 * retryDelayMs, before it is parked on the dead-letter subject (a payload
 * that does not parse is parked at once, whatever the policy):
 * - `deliveries`: JOBS_MAX_DELIVERIES deliveries.
 * - `cleanup_window`: a cleanup that must finish (account data, deleted
 *   content): for JOBS_CLEANUP_RETRY_HOURS since it was queued, so that a
 *   dependency down for hours delays it rather than parks it.
 * - `until_done`: work whose loss no one would notice (telling OpenID
 *   clients that a session ended): never parked for a failure that may
 *   pass, only when the service it calls refuses the job itself
 *   (`validation:*`), since asking again cannot help. It lives as long as
 *   its stream keeps it.
 */
export type RetryPolicy = 'deliveries' | 'cleanup_window' | 'until_done';

export interface JobConsumerOptions<Payload> {
  readonly jetstream: JetStreamClient;
  readonly jetstreamManager: JetStreamManager;
  readonly subjectPrefix: string;
  readonly job: JobDefinition<Payload>;
  readonly metrics: JobMetrics;
  readonly logger: Logger;
  /** Deliveries of a failing job before it is parked on the dead-letter subject. */
  readonly maxDeliveries: number;
  /** How long a `cleanup_window` job keeps being retried after it was queued. */
  readonly cleanupRetryMs: number;
  /** How long one delivery's work may take before its context aborts; well within the ack wait. */
  readonly budgetMs: number;
  /** Jobs of this kind that run at once in this process. */
  readonly concurrency: number;
  readonly retryBaseMs: number;
  /** Replicas of the durable consumer (NATS_STREAM_REPLICAS), as of its stream; default 1. */
  readonly replicas?: number;
  /**
   * Jobs delivered and not yet acknowledged, those waiting out a nak's delay
   * included, beyond which JetStream sends the consumer no more; JetStream's
   * default (1,000) unless said. A job kind whose jobs wait hours between
   * tries needs room for all of them, or they would stop the others.
   */
  readonly maxAckPending?: number;
}

type ParsedPayload<Payload> = { valid: true; payload: Payload } | { valid: false; problem: string };

/**
 * One durable JetStream pull consumer for one job kind. Redelivery is ours,
 * not the consumer's (no `backoff` list, unlimited `max_deliver`): a failed
 * job is nak'ed with an exponential delay, and once its retry policy gives
 * up on it (after `maxDeliveries`, by default) it is copied to the
 * dead-letter subject and terminated. Payloads never reach
 * the logs; they carry tokens.
 */
export class JobConsumer<Payload> {
  private readonly names: ReturnType<typeof topology>;
  private readonly durableName: string;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly stopped: Promise<void>;
  private messages: ConsumerMessages | undefined;
  private pulling: Promise<void> | undefined;

  constructor(private readonly options: JobConsumerOptions<Payload>) {
    this.names = topology(options.subjectPrefix);
    this.durableName = this.names.consumer(options.job.name);
    this.stopped = new Promise((resolve) => this.abort.signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  /** Creates or updates the durable consumer and starts pulling; throws when JetStream refuses. */
  async start(): Promise<void> {
    const messages = await this.open();
    this.pulling = this.pull(messages);
  }

  /**
   * Stops pulling, hands jobs received but not started back to JetStream,
   * and waits up to `timeoutMs` for the jobs in flight to settle.
   */
  async stop(timeoutMs: number): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    void this.messages?.close();
    await this.pulling;
    const running = this.inFlight.size;
    if (!(await settlesWithin(Promise.allSettled([...this.inFlight]), timeoutMs))) {
      this.options.logger.warn(
        { job: this.options.job.name, in_flight: this.inFlight.size },
        'jobs still running at shutdown; JetStream redelivers them after the ack wait',
      );
    } else if (running > 0) {
      this.options.logger.info({ job: this.options.job.name, finished: running }, 'jobs in flight finished');
    }
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private async open(): Promise<ConsumerMessages> {
    const { jetstream, jetstreamManager, job, concurrency } = this.options;
    const stream = job.stream === 'events' ? this.names.eventsStream : this.names.jobsStream;
    // Replicas as the stream's: a consumer on one server of three would stop the job kind with that server.
    const settings = {
      ack_wait: nanos(ACK_WAIT_MS),
      max_deliver: -1,
      num_replicas: this.options.replicas ?? 1,
      ...(this.options.maxAckPending ? { max_ack_pending: this.options.maxAckPending } : {}),
    };
    try {
      await jetstreamManager.consumers.info(stream, this.durableName);
      // Settings may have changed since the consumer was created.
      await jetstreamManager.consumers.update(stream, this.durableName, settings);
    } catch (error) {
      if ((error as { code?: unknown }).code !== '404') throw error;
      await jetstreamManager.consumers.add(stream, {
        durable_name: this.durableName,
        filter_subject: this.names.subject(job.subject),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...settings,
      });
    }
    const consumer = await jetstream.consumers.get(stream, this.durableName);
    // Pulls at most `concurrency` ahead, so a busy process leaves jobs to its replicas.
    return consumer.consume({ max_messages: concurrency });
  }

  private async pull(first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    while (!this.stopping) {
      try {
        messages ??= await this.open();
        this.messages = messages;
        if (this.stopping) void messages.close();
        for await (const msg of messages) {
          await this.waitForSlot();
          if (this.stopping) {
            // Not started: let another replica (or the next start) have it now, not after the ack wait.
            msg.nak();
            continue;
          }
          this.track(this.process(msg));
        }
        if (!this.stopping) this.options.logger.warn({ job: this.options.job.name }, 'job consumer ended; reopening it');
      } catch (error) {
        if (!this.stopping) {
          this.options.logger.error({ err: error, job: this.options.job.name }, 'job consumer failed; reopening it');
        }
      }
      messages = undefined;
      if (!this.stopping) await delay(REOPEN_DELAY_MS, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
  }

  private async waitForSlot(): Promise<void> {
    while (this.inFlight.size >= this.options.concurrency && !this.stopping) {
      await Promise.race([...this.inFlight, this.stopped]);
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Never rejects: every delivery ends acknowledged, nak'ed, parked, or (on a bug) left to the ack wait. */
  private async process(msg: JsMsg): Promise<void> {
    const { job, metrics } = this.options;
    const jobId = msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}-${msg.info.streamSequence}`;
    const carrier = traceCarrier(msg.headers);
    const logger = this.options.logger.child({
      job: job.name,
      job_id: jobId,
      subject: msg.subject,
      delivery: msg.info.deliveryCount,
      ...(carrier['x-request-id'] ? { request_id: carrier['x-request-id'] } : {}),
    });
    const stopTimer = metrics.duration.startTimer({ job_type: job.name });
    try {
      const outcome = await withExtractedTraceContext(carrier, () => this.settle(msg, jobId, logger));
      metrics.processed.inc({ job_type: job.name, outcome });
    } catch (error) {
      logger.error({ err: error }, 'job delivery could not be settled; JetStream redelivers it after the ack wait');
    } finally {
      stopTimer();
    }
  }

  private async settle(msg: JsMsg, jobId: string, logger: Logger): Promise<DeliveryOutcome> {
    const parsed = this.parse(msg.data);
    if (!parsed.valid) {
      logger.warn({ problem: parsed.problem }, 'job payload invalid; parking it');
      return (await this.deadLetter(msg, jobId, `invalid payload: ${parsed.problem}`, logger)) ? 'invalid' : 'retried';
    }
    const heartbeat = setInterval(() => msg.working(), WORKING_INTERVAL_MS);
    const started = startRequestContext({
      requestId: traceCarrier(msg.headers)['x-request-id'] ?? jobId,
      logger,
      deadline: Date.now() + this.options.budgetMs,
    });
    let outcome: JobOutcome;
    try {
      outcome = await this.options.job.handle(parsed.payload, { ...started.context, jobId });
    } catch (error) {
      return this.fail(msg, jobId, error, logger);
    } finally {
      started.end();
      clearInterval(heartbeat);
    }
    try {
      // Confirmed, so that a lost ack shows in the log; a redelivery would be skipped as a duplicate.
      await msg.ackAck();
    } catch (error) {
      logger.warn({ err: error }, 'job done but its ack was not confirmed');
    }
    logger.info({ outcome }, 'job done');
    return outcome;
  }

  private async fail(msg: JsMsg, jobId: string, error: unknown, logger: Logger): Promise<DeliveryOutcome> {
    const deliveries = msg.info.deliveryCount;
    if (error instanceof RetryLater) {
      msg.nak(error.delayMs);
      logger.info({ retry_in_ms: error.delayMs, reason: error.message }, 'job deferred');
      return 'retried';
    }
    if (!this.givesUp(msg, error)) {
      const retryInMs = retryDelayMs(deliveries, this.options.retryBaseMs);
      msg.nak(retryInMs);
      logger.warn({ err: error, retry_in_ms: retryInMs }, 'job failed; will retry');
      return 'retried';
    }
    logger.error({ err: error }, 'job failed on its last allowed delivery; parking it');
    const reason = `failed ${deliveries} deliveries, last error: ${error instanceof Error ? error.message : String(error)}`;
    return (await this.deadLetter(msg, jobId, reason, logger)) ? 'dead_lettered' : 'retried';
  }

  /** Whether a failed delivery is the job's last under its retry policy. */
  private givesUp(msg: JsMsg, error: unknown): boolean {
    switch (this.options.job.retries ?? 'deliveries') {
      case 'deliveries':
        return msg.info.deliveryCount >= this.options.maxDeliveries;
      case 'cleanup_window':
        return Date.now() - msg.info.timestampNanos / 1e6 >= this.options.cleanupRetryMs;
      case 'until_done':
        return error instanceof AppError && error.code.startsWith('validation:');
    }
  }

  private parse(data: Uint8Array): ParsedPayload<Payload> {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(data));
    } catch {
      return { valid: false, problem: 'not JSON' };
    }
    const result = this.options.job.schema.safeParse(json);
    if (result.success) return { valid: true, payload: result.data };
    // Paths and messages only: zod's messages do not quote the offending values.
    const problem = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    return { valid: false, problem };
  }

  /**
   * Copies the job to the dead-letter subject, then terminates it. Returns
   * false (and nak's the job for a later try) when the copy could not be
   * stored, so that no job is dropped without a trace.
   */
  private async deadLetter(msg: JsMsg, jobId: string, reason: string, logger: Logger): Promise<boolean> {
    const { jetstream, job } = this.options;
    const h = natsHeaders();
    h.set('x-dead-letter-reason', headerValue(reason));
    h.set('x-original-subject', msg.subject);
    h.set('x-original-msg-id', headerValue(jobId));
    h.set('x-deliveries', String(msg.info.deliveryCount));
    for (const [key, value] of Object.entries(traceCarrier(msg.headers))) h.set(key, value);
    try {
      // The msgID lets the dead-letter stream drop a second copy if the term below is lost.
      await jetstream.publish(this.names.deadLetterSubject(job.subject), this.deadLetterBody(msg.data), {
        headers: h,
        msgID: jobId,
        timeout: 5_000,
      });
    } catch (error) {
      const retryInMs = retryDelayMs(msg.info.deliveryCount, this.options.retryBaseMs);
      msg.nak(retryInMs);
      logger.error({ err: error, retry_in_ms: retryInMs }, 'could not park the job on the dead-letter subject; will retry');
      return false;
    }
    msg.term();
    logger.warn({ reason: headerValue(reason) }, 'job parked on the dead-letter subject');
    return true;
  }

  /** The payload without secrets; nothing at all when it is not JSON, since its content is unknown. */
  private deadLetterBody(data: Uint8Array): Uint8Array {
    try {
      const json: unknown = JSON.parse(new TextDecoder().decode(data));
      return new TextEncoder().encode(JSON.stringify(this.options.job.redactForDeadLetter(json)));
    } catch {
      return new Uint8Array();
    }
  }
}

function traceCarrier(headers: MsgHdrs | undefined): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const key of TRACE_HEADERS) {
    const value = headers?.get(key);
    if (value) carrier[key] = value;
  }
  return carrier;
}

/** NATS header values are one line. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').slice(0, MAX_HEADER_LENGTH);
}

async function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const abort = new AbortController();
  try {
    return await Promise.race([
      work.then(() => true),
      delay(timeoutMs, false, { signal: abort.signal }).catch(() => false),
    ]);
  } finally {
    abort.abort();
  }
}
