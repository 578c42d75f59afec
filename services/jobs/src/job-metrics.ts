import { Counter, Histogram, type Registry } from 'prom-client';

/** How a delivery of a job ended. */
export type DeliveryOutcome =
  /** The handler did its work. */
  | 'completed'
  /** The job had been done before (a redelivery); nothing was done again. */
  | 'duplicate'
  /** A newer state made the job moot (an older post version, a deleted post); nothing was done. */
  | 'superseded'
  /** The handler failed; the job comes back after a backoff. */
  | 'retried'
  /** The handler failed on the last allowed delivery; the job was parked. */
  | 'dead_lettered'
  /** The payload did not match the job's schema; the job was parked at once. */
  | 'invalid'
  /**
   * A destructive job its source of truth contradicts (a user.deleted for a
   * user who exists, a delete_content for a post that exists or a key that
   * is no post's, a user.reset identity did not make): nothing was done.
   * Forged or misrouted; worth an alert.
   */
  | 'refused'
  /** The handler ran out of tries its own schedule allows (a webhook endpoint that kept failing) and recorded that where its owner looks. */
  | 'abandoned';

export interface JobMetrics {
  readonly processed: Counter<'job_type' | 'outcome'>;
  readonly duration: Histogram<'job_type'>;
}

/**
 * The job kind is `job_type`, not `job`: Prometheus gives every scraped
 * series a `job` label of its own (the Prometheus Operator: the Service's
 * name) and renames a metric's `job` to `exported_job`, where no alert on
 * `job` would find it.
 */
export function createJobMetrics(registry: Registry): JobMetrics {
  return {
    processed: new Counter({
      name: 'jobs_processed_total',
      help: 'Job deliveries handled, by job kind and outcome.',
      labelNames: ['job_type', 'outcome'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'jobs_duration_seconds',
      help: 'Time from receiving a job delivery to settling it, by job kind.',
      labelNames: ['job_type'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
