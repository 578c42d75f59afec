import { totpV1 } from '@latchkey/contracts';
import { createPool, createRedisClient } from '@latchkey/db';
import { ServiceServer } from '@latchkey/grpc-kit';
import { startBackgroundRelay } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import { BackupCodeHasher } from './backup-codes';
import { CodeFailureLimit } from './code-failure-limit';
import type { TotpConfig } from './config';
import { totpHandlers } from './handlers';
import { LoginChallenges } from './login-challenges';
import { SecretBox } from './secret-box';
import { SetupTokens } from './setup-tokens';
import type { TotpDeps } from './totp-deps';

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
  const redis = createRedisClient(config.REDIS_URL, { connectionName: 'latchkey-totp', logger });
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

  const registry = createMetricsRegistry('totp');
  const server = new ServiceServer({
    logger,
    registry,
    tls: { certFile: config.GRPC_TLS_CERT_FILE, keyFile: config.GRPC_TLS_KEY_FILE, caFile: config.GRPC_TLS_CA_FILE },
  });
  server.addService('totp.v1.TotpService', totpV1.TotpServiceService, totpHandlers(deps));

  const relay = startBackgroundRelay({
    pool,
    schema: TOTP_SCHEMA,
    natsUrl: config.NATS_URL,
    subjectPrefix: config.NATS_SUBJECT_PREFIX,
    connectionName: 'latchkey-totp',
    logger,
  });


  const grpcPort = await server.listen('0.0.0.0', config.GRPC_PORT);
  const operations = await startOperationsServer({
    port: config.METRICS_PORT,
    registry,
    ready: async () => {
      await Promise.all([pool.query('SELECT 1'), redis.ping()]);
      return true;
    },
  });

  return {
    readyFields: { grpc_port: grpcPort, metrics_port: operations.port },
    async stop() {
      await server.shutdown(10_000);
      await operations.close();
      await relay.stop();
      // QUIT waits for commands in flight; before the connection is ready there are none to wait for.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
      await pool.end();
    },
  };
}
