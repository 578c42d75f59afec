import { setTimeout as delay } from 'node:timers/promises';
import { Events, type NatsConnection } from 'nats';
import type pg from 'pg';
import { Gauge } from 'prom-client';
import { createPool, createRedisClient } from '@latchkey/db';
import { connectCallees } from '@latchkey/callees';
import { observeCertificates, tlsFilesOf } from '@latchkey/grpc-kit';
import { connectToBus, ensureStreams } from '@latchkey/job-streams';
import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import { accountCleanupJob } from './account-cleanup';
import { backchannelLogoutJob } from './backchannel-logout';
import { oidcSessionEndingJob } from './oidc-session-ending';
import { startCompletedJobsCleanup } from './completed-jobs';
import type { JobsConfig } from './config';
import { ContentStore, createS3Client } from '@latchkey/object-store';
import { deleteContentJob } from './delete-content';
import { indexPostJob } from './index-post';
import { JobConsumer, type JobDefinition } from './job-consumer';
import { createJobMetrics } from './job-metrics';
import { DeadLetters } from './dead-letters';
import { createMailer } from './mailer';
import { JOBS_SCHEMA } from './migrate';
import { startTombstonePurge } from './search-index';
import { createOpenSearchClient } from '@latchkey/search-engine';
import { OpenSearchPostIndex } from './opensearch-post-index';
import { postgresPostSearchIndex, type PostSearchIndex } from './post-search-index';
import { passwordResetCleanupJob } from './password-reset-cleanup';
import { sendEmailJob } from './send-email';
import { sessionRevocationJob } from './session-revocation';
import { ssoCleanupJob } from './sso-cleanup';
import { webhookDeliveryJob } from './webhook-delivery';
import { startUnverifiedAccountPurge } from './unverified-account-purge';

/** How long shutdown waits for jobs in flight; below Kubernetes' default 30 s grace period. */
const SHUTDOWN_TIMEOUT_MS = 10_000;
/** Webhook messages waiting out their retry pauses that one consumer may hold before JetStream sends it no more. */
const WEBHOOK_MAX_ACK_PENDING = 1_000_000;
/** A readiness probe must answer before the kubelet's own timeout. */
const READINESS_TIMEOUT_MS = 2_000;

export interface Worker {
  /** The port of /metrics, /healthz and /readyz; the bound one when METRICS_PORT is 0. */
  readonly metricsPort: number;
  /** Stops pulling, waits (bounded) for jobs in flight, drains NATS and closes the pool. */
  stop(): Promise<void>;
}

/** Ready while NATS is connected and PostgreSQL answers; both are needed to finish a job. */
async function isReady(nc: NatsConnection, pool: pg.Pool): Promise<boolean> {
  const abort = new AbortController();
  try {
    return await Promise.race([
      Promise.all([nc.rtt(), pool.query('SELECT 1')]).then(
        () => true,
        () => false,
      ),
      delay(READINESS_TIMEOUT_MS, false, { signal: abort.signal }).catch(() => false),
    ]);
  } finally {
    abort.abort();
  }
}

async function logConnectionEvents(nc: NatsConnection, logger: Logger): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === Events.Disconnect || status.type === Events.Error) {
      logger.warn({ nats_event: status.type, server: status.data }, 'NATS connection lost; reconnecting');
    } else if (status.type === Events.Reconnect) {
      logger.info({ nats_event: status.type, server: status.data }, 'NATS connection restored');
    }
  }
}

/**
 * SEARCH_ENGINE's index. An OpenSearch index is created with its mapping
 * unless it exists; a cluster that cannot be reached then fails the start,
 * as PostgreSQL would.
 */
async function openPostSearchIndex(config: JobsConfig, pool: pg.Pool, teardown: (() => Promise<void>)[]): Promise<PostSearchIndex> {
  if (config.SEARCH_ENGINE === 'postgres') return postgresPostSearchIndex(pool);
  // Well below the consumer's 30 s ack wait, like the object store's requests.
  const client = createOpenSearchClient(config, { requestTimeoutMs: 15_000 });
  teardown.push(() => client.close());
  const index = new OpenSearchPostIndex(client, config.OPENSEARCH_INDEX);
  await index.ensureIndex();
  return index;
}

/**
 * The `serve` command as a function, so that tests run the real worker in
 * process: connects to PostgreSQL and NATS, makes sure the streams exist,
 * starts one consumer per job kind (mail, search index, content deletion,
 * account cleanup, a deleted organisation's SSO connections, webhook
 * deliveries, and with the
 * OpenID Provider on, back-channel logout and the session.revoked events
 * that cause it),
 * the periodic cleanups and the operations HTTP server.
 */
export async function startWorker(config: JobsConfig, logger: Logger): Promise<Worker> {
  // Undone in reverse order by stop(), or at once when a later step fails.
  const teardown: (() => Promise<void>)[] = [];
  const undo = async (): Promise<void> => {
    for (const step of teardown.reverse()) {
      await step().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const pool = createPool({
      connectionString: config.DATABASE_URL,
      schema: JOBS_SCHEMA,
      max: config.DATABASE_POOL_MAX,
      applicationName: 'latchkey-jobs',
      onIdleError: (error) => logger.warn({ err: error }, 'idle PostgreSQL connection failed'),
    });
    teardown.push(() => pool.end());

    const nc = await connectToBus(config, { name: 'latchkey-jobs', maxReconnectAttempts: -1 });
    teardown.push(async () => {
      // Drain flushes the acks and naks of the jobs that just finished.
      if (!nc.isClosed()) await nc.drain();
    });
    void logConnectionEvents(nc, logger);
    const jetstreamManager = await nc.jetstreamManager();
    await ensureStreams(jetstreamManager, config.NATS_SUBJECT_PREFIX, config.NATS_STREAM_REPLICAS);

    // Only the session jobs use Redis; a job that cannot reach it fails and is retried.
    const redis = createRedisClient(config, { connectionName: 'latchkey-jobs', logger, failFast: true });
    teardown.push(() => redis.quit().then(() => undefined, () => undefined));

    const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM });
    teardown.push(() => Promise.resolve(mailer.close()));

    // Well below the consumer's 30 s ack wait; a failed request fails the job, which is retried.
    const s3 = createS3Client(config, { connectionTimeoutMs: 5_000, requestTimeoutMs: 15_000 });
    const content = new ContentStore({ client: s3, bucket: config.S3_BUCKET, logger });
    teardown.push(() => Promise.resolve(s3.destroy()));

    const cleanup = startCompletedJobsCleanup(pool, logger);
    teardown.push(() => cleanup.stop());
    const searchIndex = await openPostSearchIndex(config, pool, teardown);
    const purge = startTombstonePurge(searchIndex, logger);
    teardown.push(() => purge.stop());

    const callees = connectCallees('jobs', config);
    const { identity, oidc, posts, totp, oauth, passkeys, sso, webhooks } = callees.clients;
    teardown.push(() => Promise.resolve(callees.close()));

    const registry = createMetricsRegistry('jobs');
    observeCertificates({ registry, logger, units: tlsFilesOf(config) });
    const metrics = createJobMetrics(registry);
    const deadLetters = new DeadLetters(jetstreamManager, nc.jetstream(), config.NATS_SUBJECT_PREFIX);
    new Gauge({
      name: 'jobs_dead_letters',
      help: 'Jobs parked on the dead-letter stream, to be looked at and replayed (jobs dlq).',
      registers: [registry],
      async collect() {
        // A broker that does not answer leaves the last value: the scrape itself must not fail.
        const count = await deadLetters.count().catch(() => undefined);
        if (count !== undefined) this.set(count);
      },
    });
    const consumerFor = <Payload>(job: JobDefinition<Payload>, tuning: { concurrency?: number; maxAckPending?: number } = {}): JobConsumer<Payload> =>
      new JobConsumer({
        jetstream: nc.jetstream(),
        jetstreamManager,
        subjectPrefix: config.NATS_SUBJECT_PREFIX,
        replicas: config.NATS_STREAM_REPLICAS,
        job,
        metrics,
        logger,
        maxDeliveries: config.JOBS_MAX_DELIVERIES,
        cleanupRetryMs: config.JOBS_CLEANUP_RETRY_HOURS * 3_600_000,
        concurrency: config.JOBS_CONCURRENCY,
        retryBaseMs: config.JOBS_RETRY_BASE_MS,
        budgetMs: config.GRPC_DEADLINE_MS,
        ...tuning,
      });
    const unverifiedPurge = startUnverifiedAccountPurge(
      {
        identity,
        ttlHours: config.AUTH_UNVERIFIED_ACCOUNT_TTL_HOURS,
        intervalMs: config.JOBS_UNVERIFIED_PURGE_INTERVAL_SECONDS * 1000,
        budgetMs: config.GRPC_DEADLINE_MS,
      },
      logger,
    );
    teardown.push(() => unverifiedPurge.stop());
    const mail = { pool, mailer, publicAppUrl: config.PUBLIC_APP_URL };
    const consumers = [
      consumerFor(sendEmailJob(mail)),
      consumerFor(indexPostJob({ searchIndex, content })),
      consumerFor(deleteContentJob({ searchIndex, content, posts })),
      consumerFor(accountCleanupJob({ identity, posts, totp, oauth, passkeys, redis, redisKeyPrefix: config.REDIS_KEY_PREFIX })),
      consumerFor(sessionRevocationJob({ redis, redisKeyPrefix: config.REDIS_KEY_PREFIX })),
      consumerFor(passwordResetCleanupJob({ identity, passkeys, oauth, mail })),
      consumerFor(ssoCleanupJob({ sso })),
      consumerFor(
        webhookDeliveryJob({
          webhooks,
          privateKey: config.WEBHOOK_SEALING_PRIVATE_KEY,
          retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_SECONDS.map((seconds) => seconds * 1000),
          timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
          endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
          egress: { allowInternal: config.NODE_ENV !== 'production' || config.WEBHOOK_ALLOW_PRIVATE_TARGETS },
        }),
        // Messages to a dead endpoint wait hours between attempts, unacknowledged: room for a great many of them.
        { concurrency: config.WEBHOOK_CONCURRENCY, maxAckPending: WEBHOOK_MAX_ACK_PENDING },
      ),
      ...(config.OIDC_ENABLED && config.AUTH_JWT_SIGNING_KEYS
        ? [
            consumerFor(oidcSessionEndingJob({ oidc })),
            consumerFor(
              backchannelLogoutJob({
                keys: config.AUTH_JWT_SIGNING_KEYS,
                issuer: config.OIDC_ISSUER ?? new URL(config.PUBLIC_APP_URL).origin,
                egress: { allowInternal: config.NODE_ENV !== 'production' },
              }),
            ),
          ]
        : []),
    ];
    for (const consumer of consumers) {
      await consumer.start();
      teardown.push(() => consumer.stop(SHUTDOWN_TIMEOUT_MS));
    }

    const operations = await startOperationsServer({
      port: config.METRICS_PORT,
      host: config.LISTEN_HOST,
      registry,
      ready: () => isReady(nc, pool),
    });
    teardown.push(() => operations.close());

    let stopping: Promise<void> | undefined;
    return {
      metricsPort: operations.port,
      stop: () => (stopping ??= undo()),
    };
  } catch (error) {
    await undo();
    throw error;
  }
}
