import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { AppError } from '@latchkey/errors';
import { ensureStreams, topology } from '@latchkey/job-streams';
import { createLogger } from '@latchkey/telemetry';
import { testNatsUrl, uniqueName, waitFor } from '@latchkey/test-kit';
import { JobConsumer, type JobDefinition, type RetryPolicy } from '../../src/job-consumer';
import { createJobMetrics, type JobMetrics } from '../../src/job-metrics';

/**
 * services/jobs/src/job-consumer.ts, RetryPolicy: `deliveries` parks a job
 * after JOBS_MAX_DELIVERIES; `until_done` never parks one for a failure
 * that may pass, and parks one the service refused as invalid at once.
 */
const prefix = uniqueName('jobs_retry');
const names = topology(prefix);
const silent = createLogger({ service: 'test', level: 'silent' });

let nc: NatsConnection;
let metrics: JobMetrics;
let registry: Registry;
const consumers: JobConsumer<{ n: number }>[] = [];

beforeAll(async () => {
  nc = await connect({ servers: testNatsUrl() });
  await ensureStreams(await nc.jetstreamManager(), prefix);
  registry = new Registry();
  metrics = createJobMetrics(registry);
});

afterAll(async () => {
  for (const consumer of consumers) await consumer.stop(1_000);
  const jsm = await nc.jetstreamManager();
  for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) await jsm.streams.delete(stream).catch(() => undefined);
  await nc.drain();
});

async function processed(job: string, outcome: string): Promise<number> {
  const counts = await registry.getSingleMetric('jobs_processed_total')!.get();
  return counts.values.find((value) => value.labels.job_type === job && value.labels.outcome === outcome)?.value ?? 0;
}

/** Runs a job kind on `events.<name>` that fails with what `failure` throws for its first `failures` deliveries. */
async function start(name: string, retries: RetryPolicy, failures: number, failure: () => Error): Promise<void> {
  let deliveries = 0;
  const job: JobDefinition<{ n: number }> = {
    name,
    subject: `events.${name}`,
    stream: 'events',
    schema: z.object({ n: z.number() }),
    handle() {
      deliveries += 1;
      return deliveries <= failures ? Promise.reject(failure()) : Promise.resolve('completed');
    },
    redactForDeadLetter: (payload) => payload,
    retries,
  };
  const consumer = new JobConsumer({
    jetstream: nc.jetstream(),
    jetstreamManager: await nc.jetstreamManager(),
    subjectPrefix: prefix,
    job,
    metrics,
    logger: silent,
    maxDeliveries: 2,
    cleanupRetryMs: 3_600_000,
    budgetMs: 1_000,
    concurrency: 1,
    retryBaseMs: 10,
  });
  consumers.push(consumer);
  await consumer.start();
  await nc.jetstream().publish(names.subject(`events.${name}`), JSON.stringify({ n: 1 }), { msgID: randomUUID() });
}

describe('retry policies', () => {
  it('deliveries: parks a failing job on its JOBS_MAX_DELIVERIES-th delivery', async () => {
    await start('limited', 'deliveries', 10, () => new AppError('service:unavailable'));
    await waitFor(async () => ((await processed('limited', 'dead_lettered')) === 1 ? true : undefined), { description: 'the job parked' });
    expect(await processed('limited', 'retried')).toBe(1);
  });

  it('until_done: retries an unavailable service past JOBS_MAX_DELIVERIES and completes', async () => {
    await start('unlimited', 'until_done', 6, () => new AppError('service:unavailable'));
    await waitFor(async () => ((await processed('unlimited', 'completed')) === 1 ? true : undefined), { description: 'the job done' });
    expect(await processed('unlimited', 'retried')).toBe(6);
    expect(await processed('unlimited', 'dead_lettered')).toBe(0);
  });

  it('until_done: parks at once a job the service refuses as invalid', async () => {
    await start('refused_input', 'until_done', 10, () => AppError.validation([{ field: 'user_id', message: 'must be a UUID' }]));
    await waitFor(async () => ((await processed('refused_input', 'dead_lettered')) === 1 ? true : undefined), { description: 'the job parked' });
    expect(await processed('refused_input', 'retried')).toBe(0);
  });
});
