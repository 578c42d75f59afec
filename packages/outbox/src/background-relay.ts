import { connect, type NatsConnection } from 'nats';
import type pg from 'pg';
import { ensureStreams } from '@latchkey/jobs-contract';
import type { Logger } from '@latchkey/telemetry';
import { OutboxRelay } from './outbox-relay';

export interface BackgroundRelayOptions {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly natsUrl: string;
  readonly subjectPrefix: string;
  /** Shown in NATS monitoring, e.g. `latchkey-identity`. */
  readonly connectionName: string;
  readonly logger: Logger;
}

export interface BackgroundRelay {
  stop(): Promise<void>;
}

/**
 * Connects to NATS in the background and relays the schema's outbox once
 * connected. A service must not wait for the broker to serve: while it is
 * away, state changes still commit and their jobs wait in the outbox.
 */
export function startBackgroundRelay(options: BackgroundRelayOptions): BackgroundRelay {
  let nats: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let stopped = false;
  const started = (async () => {
    nats = await connect({
      servers: options.natsUrl,
      name: options.connectionName,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
    });
    if (stopped) return;
    await ensureStreams(await nats.jetstreamManager(), options.subjectPrefix);
    relay = new OutboxRelay({
      pool: options.pool,
      schema: options.schema,
      jetstream: nats.jetstream(),
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
      // Still connecting (broker away): give up rather than hold the shutdown.
      await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      await relay?.stop();
      await nats?.drain().catch(() => undefined);
      if (nats && !nats.isClosed()) await nats.close();
    },
  };
}
