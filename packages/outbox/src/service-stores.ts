import type pg from 'pg';
import { createPool, createRedisClient, sessionUrlOf, type DatabaseUrls, type RedisClient, type RedisSettings } from '@latchkey/db';
import type { BusSettings } from '@latchkey/job-streams';
import type { Logger } from '@latchkey/telemetry';
import { startBackgroundRelay } from './background-relay';

/** What a gRPC service's stores are opened from, as its config parses them. */
export interface ServiceStoreSettings extends DatabaseUrls, RedisSettings, BusSettings {
  readonly DATABASE_POOL_MAX: number;
  readonly NATS_SUBJECT_PREFIX: string;
}

export interface ServiceStoreOptions {
  /** The unit's name: its connections show as `latchkey-<unit>` in PostgreSQL, Redis and NATS. */
  readonly unit: string;
  readonly schema: string;
  readonly logger: Logger;
  /** See RedisClientOptions.failFast. */
  readonly redisFailsFast?: boolean;
}

/** A gRPC service's own database pool and Redis, and the relay that carries its outbox to JetStream. */
export interface ServiceStores {
  readonly pool: pg.Pool;
  readonly redis: RedisClient;
  /** For `ready`: the database, which every call needs; Redis fails only the calls that use it (docs/operations.md, "Probes"). */
  readonly databaseAnswers: () => Promise<boolean>;
  /** Stops the relay before the pool it reads ends; call it once the service no longer serves. */
  close(): Promise<void>;
}

async function closeRedis(redis: RedisClient): Promise<void> {
  // QUIT waits for commands in flight; before the connection is ready there are none to wait for.
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

/**
 * Opens a gRPC service's stores. The relay connects to the broker in the
 * background (see startBackgroundRelay): the service serves while it is away.
 */
export function openServiceStores(settings: ServiceStoreSettings, options: ServiceStoreOptions): ServiceStores {
  const { logger, schema } = options;
  const connectionName = `latchkey-${options.unit}`;
  const pool = createPool({
    connectionString: settings.DATABASE_URL,
    schema,
    max: settings.DATABASE_POOL_MAX,
    applicationName: connectionName,
    onIdleError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
  });
  const redis = createRedisClient(settings, { connectionName, logger, failFast: options.redisFailsFast ?? false });
  const relay = startBackgroundRelay({
    pool,
    listenUrl: sessionUrlOf(settings),
    schema,
    bus: settings,
    subjectPrefix: settings.NATS_SUBJECT_PREFIX,
    connectionName,
    logger,
  });
  return {
    pool,
    redis,
    databaseAnswers: async () => {
      await pool.query('SELECT 1');
      return true;
    },
    async close() {
      await relay.stop();
      await closeRedis(redis);
      await pool.end();
    },
  };
}
