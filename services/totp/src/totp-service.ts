import { totpV1 } from '@latchkey/contracts';
import { createPool, createRedisClient } from '@latchkey/db';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { startBackgroundRelay } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import { BackupCodeHasher } from './backup-codes';
import { CodeFailureLimit } from './code-failure-limit';
import type { TotpConfig } from './config';
import { totpHandlers } from './handlers';
import { LoginChallenges } from './login-challenges';
import { SecretBox } from './secret-box';
import { SetupTokens } from './setup-tokens';
import type { TotpDeps } from './totp-deps';
import { callersOf } from '@latchkey/units';

export const TOTP_SCHEMA = 'totp';

export interface TotpServiceOptions {
  /** Unix time in milliseconds; tests pass a clock they can move. */
  readonly now?: () => number;
}

/**
 * Serves totp.v1 over gRPC and relays its outbox (security notices) to
 * JetStream. The broker is connected in the background: while it is away,
 * TOTP changes still succeed and their notices wait in the outbox.
 */
export async function startTotpService(
  config: TotpConfig,
  logger: Logger,
  options: TotpServiceOptions = {},
): Promise<Running> {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: TOTP_SCHEMA,
    max: config.DATABASE_POOL_MAX,
    applicationName: 'latchkey-totp',
    onIdleError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
  });
  const redis = createRedisClient(config, { connectionName: 'latchkey-totp', logger });
  const deps: TotpDeps = {
    pool,
    secretBox: new SecretBox(config.TOTP_ENCRYPTION_KEY, config.TOTP_PREVIOUS_ENCRYPTION_KEYS),
    backupCodeHasher: new BackupCodeHasher(config.TOTP_ENCRYPTION_KEY, config.TOTP_PREVIOUS_ENCRYPTION_KEYS),
    setupTokens: new SetupTokens(redis, config.REDIS_KEY_PREFIX),
    loginChallenges: new LoginChallenges(redis, config.REDIS_KEY_PREFIX, config.TOTP_TEMP_TOKEN_TTL_SECONDS),
    failureLimit: new CodeFailureLimit(redis, config.REDIS_KEY_PREFIX, {
      maxFailures: config.RATE_LIMIT_TOTP_FAILURES,
      windowSeconds: config.RATE_LIMIT_TOTP_WINDOW_SECONDS,
    }),
    issuer: config.TOTP_ISSUER,
    now: options.now ?? Date.now,
  };

  const relay = startBackgroundRelay({
    pool,
    listenUrl: config.DATABASE_SESSION_URL ?? config.DATABASE_URL,
    schema: TOTP_SCHEMA,
    bus: config,
    subjectPrefix: config.NATS_SUBJECT_PREFIX,
    connectionName: 'latchkey-totp',
    logger,
  });

  const endpoints = await startGrpcEndpoints({
    unit: 'totp',
    callers: callersOf('totp'),
    settings: config,
    logger,
    service: { name: 'totp.v1.TotpService', definition: totpV1.TotpServiceService, handlers: totpHandlers(deps) },
    // Its database, which every call needs; Redis fails only the calls that use it (docs/operations.md, "Probes").
    ready: async () => {
      await pool.query('SELECT 1');
      return true;
    },
  });

  return {
    readyFields: { grpc_port: endpoints.grpcPort, metrics_port: endpoints.metricsPort },
    async stop() {
      await endpoints.stop();
      await relay.stop();
      // QUIT waits for commands in flight; before the connection is ready there are none to wait for.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
      await pool.end();
    },
  };
}
