import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * A unit's Redis: one server, a master found through Sentinel, or a Redis
 * Cluster. Every caller writes against the commands both have; what they
 * must not do in a cluster (a transaction, script or multi-key command over
 * keys of several hash slots) is kept out by the keys' hash tags
 * (docs/architecture.md, "Redis keys").
 */
export type RedisClient = Redis | Cluster;

/** How a unit reaches Redis, as packages/config's `redisVariables` parse it. */
export interface RedisSettings {
  readonly REDIS_MODE: 'standalone' | 'sentinel' | 'cluster';
  readonly REDIS_URL?: string | undefined;
  readonly REDIS_SENTINELS?: readonly string[] | undefined;
  readonly REDIS_SENTINEL_MASTER?: string | undefined;
  readonly REDIS_SENTINEL_PASSWORD?: string | undefined;
  readonly REDIS_CLUSTER_NODES?: readonly string[] | undefined;
  readonly REDIS_USERNAME?: string | undefined;
  readonly REDIS_PASSWORD?: string | undefined;
  readonly REDIS_TLS?: boolean | undefined;
}

interface RedisLogger {
  warn(fields: object, message: string): void;
  info(message: string): void;
}

export interface RedisClientOptions {
  connectionName: string;
  logger: RedisLogger;
  /**
   * Fail commands at once while Redis is away, and after a second when it
   * stops answering: for callers that would rather answer without Redis,
   * or with a 503, than wait for it.
   */
  failFast?: boolean;
}

/** `host:port` (IPv6 hosts in brackets) as ioredis names a node. */
function node(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

function required<T>(value: T | undefined, name: string, mode: string): T {
  if (value === undefined) throw new Error(`${name} is required when REDIS_MODE=${mode}`);
  return value;
}

/**
 * A master that became a replica (a failover the client has not noticed
 * yet, or the old master back as a replica) refuses writes with READONLY:
 * reconnect, which asks Sentinel for the current master, and resend.
 */
function reconnectOnReadOnly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/**
 * A unit's Redis connection, in the mode REDIS_MODE names. Commands issued
 * while Redis is away wait for a bounded number of reconnect attempts and
 * then fail, so a request answers instead of hanging; an outage is logged
 * once, not once per attempt. A Sentinel client asks the sentinels for the
 * master on every reconnect and follows a failover; a Cluster client
 * follows MOVED and refreshes its slot map when a replica is promoted.
 */
export function createRedisClient(settings: RedisSettings, options: RedisClientOptions): RedisClient {
  const connection: RedisOptions = {
    connectionName: options.connectionName,
    enableOfflineQueue: !options.failFast,
    ...(options.failFast ? { commandTimeout: 1_000 } : {}),
    connectTimeout: 5_000,
    // A server that stops answering without closing the connection (a hung
    // or partitioned master) is dropped and, with Sentinel, asked for again.
    socketTimeout: 5_000,
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    ...(settings.REDIS_USERNAME === undefined ? {} : { username: settings.REDIS_USERNAME }),
    ...(settings.REDIS_PASSWORD === undefined ? {} : { password: settings.REDIS_PASSWORD }),
    ...(settings.REDIS_TLS ? { tls: {} } : {}),
  };
  const mode = settings.REDIS_MODE;
  let redis: RedisClient;
  if (mode === 'standalone') {
    redis = new Redis(required(settings.REDIS_URL, 'REDIS_URL', mode), connection);
  } else if (mode === 'sentinel') {
    redis = new Redis({
      ...connection,
      sentinels: required(settings.REDIS_SENTINELS, 'REDIS_SENTINELS', mode).map(node),
      name: required(settings.REDIS_SENTINEL_MASTER, 'REDIS_SENTINEL_MASTER', mode),
      ...(settings.REDIS_SENTINEL_PASSWORD === undefined ? {} : { sentinelPassword: settings.REDIS_SENTINEL_PASSWORD }),
      ...(settings.REDIS_TLS ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      // No failoverDetector: its +switch-master notice, arriving while the
      // client is reconnecting to the dead master, makes ioredis give up
      // for good (status "end"). A killed master closes the connection and
      // a hung one hits socketTimeout; either way the client asks again.
      sentinelRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      reconnectOnError: reconnectOnReadOnly,
    });
  } else {
    // The cluster client reconnects and queues itself; its nodes take the rest.
    const { retryStrategy, enableOfflineQueue, ...perNode } = connection;
    const cluster: ClusterOptions = {
      redisOptions: perNode,
      enableOfflineQueue,
      maxRedirections: 16,
      // Every read from the master: a replica may not have the session a sign-in just wrote.
      scaleReads: 'master',
      clusterRetryStrategy: retryStrategy,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      slotsRefreshTimeout: 2_000,
      // Managed clusters with TLS (ElastiCache) present certificates for the names they announce.
      ...(settings.REDIS_TLS ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
    };
    redis = new Cluster(required(settings.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES', mode).map(node), cluster);
  }
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    options.logger.warn({ err: error }, 'redis unavailable; retrying');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger.info('redis available again');
  });
  return redis;
}

/**
 * Resolves once the client is ready, has failed to connect, or `timeoutMs`
 * has passed, whichever comes first, with whether it is ready. A process
 * that serves from Redis waits for it before it listens, so that its first
 * requests do not fail for a connection still being made; one that finds
 * Redis away starts anyway and answers 503 until Redis is back.
 */
export async function settledConnection(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (isReady(redis)) return true;
  await new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      redis.off('ready', settle).off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, timeoutMs);
    redis.once('ready', settle).once('error', settle);
  });
  return isReady(redis);
}

function isReady(redis: RedisClient): boolean {
  return redis.status === 'ready';
}
