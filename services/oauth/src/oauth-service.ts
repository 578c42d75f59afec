import { connect, type NatsConnection } from 'nats';
import { identityV1, oauthV1 } from '@latchkey/contracts';
import { createPool, createRedisClient } from '@latchkey/db';
import { createServiceClient, ServiceServer } from '@latchkey/grpc-kit';
import { ensureStreams } from '@latchkey/jobs-contract';
import { OutboxRelay } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import type { OAuthConfig } from './config';
import { oauthHandlers } from './handlers';
import type { OAuthDeps } from './oauth-deps';
import { OAuthStates } from './oauth-state';
import { PendingSignups } from './pending-signups';
import { createProviderRegistry } from './providers/provider-registry';

export const OAUTH_SCHEMA = 'oauth';

/**
 * Serves oauth.v1 over gRPC and relays its outbox (link and unlink notices)
 * to JetStream. The broker is connected in the background: while it is
 * away, connections still change and their notices wait in the outbox.
 */
export async function startOAuthService(config: OAuthConfig, logger: Logger): Promise<Running> {
  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: OAUTH_SCHEMA,
    max: config.DATABASE_POOL_MAX,
    applicationName: 'latchkey-oauth',
    onIdleError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
  });
  const redis = createRedisClient(config.REDIS_URL, { connectionName: 'latchkey-oauth', logger });
  const tls = { certFile: config.GRPC_TLS_CERT_FILE, keyFile: config.GRPC_TLS_KEY_FILE, caFile: config.GRPC_TLS_CA_FILE };
  const identity = createServiceClient(identityV1.IdentityServiceService, config.IDENTITY_GRPC_ADDRESS, {
    deadlineMs: config.GRPC_DEADLINE_MS,
    tls,
  });
  const deps: OAuthDeps = {
    pool,
    identity,
    providers: createProviderRegistry(config, logger),
    states: new OAuthStates(redis, config.REDIS_KEY_PREFIX, config.OAUTH_STATE_TTL_SECONDS),
    pendingSignups: new PendingSignups(redis, config.REDIS_KEY_PREFIX, config.OAUTH_PENDING_SIGNUP_TTL_MINUTES),
    now: Date.now,
  };

  const registry = createMetricsRegistry('oauth');
  const server = new ServiceServer({ logger, registry, tls });
  server.addService('oauth.v1.OAuthService', oauthV1.OAuthServiceService, oauthHandlers(deps));

  let nats: NatsConnection | undefined;
  let relay: OutboxRelay | undefined;
  let stopped = false;
  const connectBroker = async (): Promise<void> => {
    nats = await connect({
      servers: config.NATS_URL,
      name: 'latchkey-oauth',
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
    });
    if (stopped) return;
    await ensureStreams(await nats.jetstreamManager(), config.NATS_SUBJECT_PREFIX);
    relay = new OutboxRelay({
      pool,
      schema: OAUTH_SCHEMA,
      jetstream: nats.jetstream(),
      subjectPrefix: config.NATS_SUBJECT_PREFIX,
      logger,
    });
    relay.start();
  };
  const brokerReady = connectBroker().catch((error: unknown) =>
    logger.error({ err: error }, 'could not set up the outbox relay; notices stay queued in the outbox'),
  );

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
    readyFields: { grpc_port: grpcPort, metrics_port: operations.port, providers: deps.providers.names() },
    async stop() {
      stopped = true;
      await server.shutdown(10_000);
      await operations.close();
      await Promise.race([brokerReady, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      await relay?.stop();
      await nats?.drain().catch(() => undefined);
      identity.close();
      await redis.quit().catch(() => redis.disconnect());
      await pool.end();
    },
  };
}
