import type { NatsConnection } from 'nats';
import type pg from 'pg';
import { connectToBus, type BusSettings } from '@latchkey/job-streams';
import type { Logger } from '@latchkey/telemetry';
import { OutboxRelay } from './outbox-relay';

export interface BackgroundRelayOptions {
  readonly pool: pg.Pool;
  /** DATABASE_SESSION_URL (default DATABASE_URL): a connection of its own for LISTEN. */
  readonly listenUrl: string;
  readonly schema: string;
  /** NATS_URL, and the unit's own credentials when the installation gives them. */
  readonly bus: BusSettings;
  readonly subjectPrefix: string;
  /** Shown in NATS monitoring, e.g. `latchkey-identity`. */
  readonly connectionName: string;
  readonly logger: Logger;
}

export interface BackgroundRelay {
  stop(): Promise<void>;
}

/** How long stop() waits for a connection still being made before giving up on it. */
const STOP_WAIT_MS = 1_000;

/** Waits for `promise` for at most `ms`, leaving no timer behind to hold the process open. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Connects to NATS in the background and relays the schema's outbox once
 * connected. A service must not wait for the broker to serve: while it is
 * away, state changes still commit and their jobs wait in the outbox. It
 * creates no stream (the jobs worker owns them, see streamOwner in
 * @latchkey/job-streams): until they exist, rows wait as they do while the
 * broker is away.
 */
export function startBackgroundRelay(options: BackgroundRelayOptions): BackgroundRelay {
  let nats: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let stopped = false;
  const started = (async () => {
    const connection = await connectToBus(options.bus, {
      name: options.connectionName,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
    });
    nats = connection;
    // stop() may have given up waiting meanwhile; then nothing must be left running.
    if (stopped) {
      await connection.close();
      return;
    }
    relay = new OutboxRelay({
      pool: options.pool,
      listenUrl: options.listenUrl,
      schema: options.schema,
      jetstream: connection.jetstream(),
      subjectPrefix: options.subjectPrefix,
      logger: options.logger,
    });
    relay.start();
  })().catch((error: unknown) =>
    options.logger.error({ err: error }, 'could not set up the outbox relay; jobs stay queued in the outbox'),
  );
  return {
    async stop() {
      stopped = true;
      await settledWithin(started, STOP_WAIT_MS);
      await relay?.stop();
      await nats?.drain().catch(() => undefined);
    },
  };
}
