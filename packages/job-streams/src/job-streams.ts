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
 */
export async function ensureStreams(jsm: JetStreamManager, prefix: string): Promise<void> {
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
  for (const config of streams) {
    try {
      await jsm.streams.info(config.name as string);
      await jsm.streams.update(config.name as string, config);
    } catch (error) {
      if ((error as { code?: unknown }).code !== '404') throw error;
      await jsm.streams.add(config);
    }
  }
}
