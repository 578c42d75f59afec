import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from 'nats';

/** Names of streams, subjects and consumers for one installation. */
export function topology(prefix: string) {
  const upper = prefix.toUpperCase();
  return {
    jobsStream: `${upper}_JOBS`,
    deadLetterStream: `${upper}_DEAD`,
    /** Domain events for the services beside Latchkey (docs/events.md). */
    eventsStream: `${upper}_EVENTS`,
    subject: (relative: string) => `${prefix}.${relative}`,
    deadLetterSubject: (relative: string) => `${prefix}.dead.${relative}`,
    jobsFilter: `${prefix}.jobs.>`,
    deadLetterFilter: `${prefix}.dead.>`,
    eventsFilter: `${prefix}.events.>`,
    consumer: (name: string) => `${prefix}_${name}`,
  };
}

const DAY_NS = 24 * 60 * 60 * 1e9;

/**
 * Creates the streams (jobs, dead letters, domain events) or brings their
 * settings up to date. Only the stream owner calls it, at start (the jobs
 * worker, see streamOwner): its NATS user is the only one allowed to. The
 * producers only publish, and keep their jobs in the outbox until the
 * streams exist, so the order of deployment does not matter.
 * Jobs use work-queue retention: a job is gone once acknowledged, which is
 * what keeps mailed tokens from lingering in the broker.
 *
 * `replicas` (NATS_STREAM_REPLICAS) is applied to existing streams too, so
 * that raising it after a move to a NATS cluster takes effect at the next
 * start; when the servers refuse (fewer servers than replicas, a server
 * without JetStream), the start fails with the stream and the server's reason.
 */
export async function ensureStreams(jsm: JetStreamManager, prefix: string, replicas = 1): Promise<void> {
  const names = topology(prefix);
  const streams: Partial<StreamConfig>[] = [
    {
      name: names.jobsStream,
      subjects: [names.jobsFilter],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1e9,
      max_age: 7 * DAY_NS,
    },
    {
      name: names.deadLetterStream,
      subjects: [names.deadLetterFilter],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 30 * DAY_NS,
    },
    {
      // Kept for a week whether or not anyone read them: consumers come and go, and catch up.
      name: names.eventsStream,
      subjects: [names.eventsFilter],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1e9,
      max_age: 7 * DAY_NS,
    },
  ];
  for (const stream of streams) await ensureStream(jsm, { ...stream, num_replicas: replicas });
}

/** How long a unit keeps trying a stream the cluster is too busy or not yet ready to create. */
const STREAM_SETUP_RETRY_MS = 60_000;

/**
 * Whether JetStream may answer differently in a moment: a request that
 * timed out (a NATS cluster electing a leader, or busy creating replicas),
 * JetStream not yet available, or another unit creating the same stream at
 * the same time. Anything else (too few servers for the replicas, a bad
 * setting) will not change by waiting.
 */
function transient(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const { code, api_error: api } = cause as { code?: unknown; api_error?: { err_code?: unknown } };
  // 10058: stream name already in use (created by another unit since we looked).
  return code === 'TIMEOUT' || code === '503' || api?.err_code === 10058;
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig>): Promise<void> {
  const deadline = Date.now() + STREAM_SETUP_RETRY_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await applyStream(jsm, config);
      return;
    } catch (error) {
      if (!transient(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 2_000)));
    }
  }
}

async function applyStream(jsm: JetStreamManager, config: Partial<StreamConfig>): Promise<void> {
  const name = config.name as string;
  const replicas = config.num_replicas ?? 1;
  let current: number;
  try {
    current = (await jsm.streams.info(name)).config.num_replicas;
  } catch (error) {
    if ((error as { code?: unknown }).code !== '404') throw error;
    await jsm.streams.add(config).catch((cause: unknown) => {
      throw new Error(`could not create stream ${name} with ${replicas} replicas (NATS_STREAM_REPLICAS): ${String(cause)}`, { cause });
    });
    return;
  }
  await jsm.streams.update(name, config).catch((cause: unknown) => {
    const change = current === replicas ? '' : ` from ${current} to ${replicas} replicas (NATS_STREAM_REPLICAS)`;
    throw new Error(`could not update stream ${name}${change}: ${String(cause)}`, { cause });
  });
}
