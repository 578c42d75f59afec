import {
  startNatsCluster,
  startPgBouncer,
  startPostgresCluster,
  startRedisCluster,
  startSentinelGroup,
  type OwnNatsCluster,
  type OwnPgBouncer,
  type OwnPostgresCluster,
  type OwnRedisCluster,
  type OwnSentinelGroup,
} from '@latchkey/test-kit';

/**
 * Where a stack of the production topology finds its engines, as plain
 * data: the topology project's global setup hands it to the test files
 * through LATCHKEY_TOPOLOGY.
 */
export interface TopologyAddresses {
  /** The private primary, directly: databases are created and dropped there. */
  readonly databaseAdminUrl: string;
  /** PgBouncer in transaction mode in front of the primary (DATABASE_URL), when there is one. */
  readonly bouncerUrl?: string | undefined;
  /** The streaming replica (DATABASE_READ_URL), when there is one. */
  readonly replicaUrl?: string | undefined;
  /** NATS_URL of the cluster, when there is one. */
  readonly natsUrls?: string | undefined;
  /** REDIS_MODE and its settings. */
  readonly redis?: Readonly<Record<string, string>> | undefined;
}

/** The variables of `addresses` for a stack whose database is `database`. */
export function topologyEnv(addresses: TopologyAddresses, database: string): Record<string, string> {
  const inDatabase = (url: string) => {
    const named = new URL(url);
    named.pathname = `/${database}`;
    return named.toString();
  };
  const primary = inDatabase(addresses.databaseAdminUrl);
  return {
    DATABASE_URL: addresses.bouncerUrl === undefined ? primary : inDatabase(addresses.bouncerUrl),
    DATABASE_SESSION_URL: primary,
    ...(addresses.replicaUrl === undefined ? {} : { DATABASE_READ_URL: inDatabase(addresses.replicaUrl) }),
    ...(addresses.natsUrls === undefined ? {} : { NATS_URL: addresses.natsUrls, NATS_STREAM_REPLICAS: '3' }),
    ...addresses.redis,
  };
}

/**
 * The addresses the topology project's global setup started, if this test
 * runs in that project (jest.config.js marks its files with a global: a
 * global setup's variables reach the files of every project).
 */
export function sharedTopology(): TopologyAddresses | undefined {
  const inProject = (globalThis as { LATCHKEY_TOPOLOGY_PROJECT?: unknown }).LATCHKEY_TOPOLOGY_PROJECT === true;
  const given = process.env.LATCHKEY_TOPOLOGY;
  return inProject && given !== undefined ? (JSON.parse(given) as TopologyAddresses) : undefined;
}

export interface RunningTopology {
  readonly addresses: TopologyAddresses;
  readonly postgres?: OwnPostgresCluster;
  readonly bouncer?: OwnPgBouncer;
  readonly nats?: OwnNatsCluster;
  readonly redisCluster?: OwnRedisCluster;
  readonly sentinel?: OwnSentinelGroup;
  stop(): Promise<void>;
}

/**
 * Starts the engines of a production topology on loopback ports: PostgreSQL
 * with a streaming replica behind PgBouncer in transaction mode, a 3-node
 * NATS cluster, and a Redis Cluster (3 masters, 3 replicas) or a Sentinel
 * group. What is left out is the machine's own service.
 */
export async function startTopology(
  parts: { postgres?: boolean; nats?: boolean; redis?: 'cluster' | 'sentinel' | undefined } = { postgres: true, nats: true, redis: 'cluster' },
): Promise<RunningTopology> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const [postgres, nats, redisCluster, sentinel] = await Promise.all([
      parts.postgres ? startPostgresCluster().then((c) => (stops.push(() => c.stop()), c)) : undefined,
      parts.nats ? startNatsCluster().then((c) => (stops.push(() => c.stop()), c)) : undefined,
      parts.redis === 'cluster' ? startRedisCluster().then((c) => (stops.push(() => c.stop()), c)) : undefined,
      parts.redis === 'sentinel' ? startSentinelGroup().then((c) => (stops.push(() => c.stop()), c)) : undefined,
    ]);
    const bouncer = postgres ? await startPgBouncer({ postgresPort: postgres.primary.port }) : undefined;
    if (bouncer) stops.push(() => bouncer.stop());
    const redis: Record<string, string> | undefined = redisCluster
      ? { REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: redisCluster.seeds, REDIS_PASSWORD: redisCluster.password }
      : sentinel
        ? {
            REDIS_MODE: 'sentinel',
            REDIS_SENTINELS: sentinel.sentinels,
            REDIS_SENTINEL_MASTER: sentinel.masterName,
            REDIS_SENTINEL_PASSWORD: sentinel.password,
            REDIS_PASSWORD: sentinel.password,
          }
        : undefined;
    const addresses: TopologyAddresses = {
      databaseAdminUrl: postgres?.primary.url() ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      bouncerUrl: bouncer?.url('postgres'),
      replicaUrl: postgres?.replica.url(),
      natsUrls: nats?.urls,
      redis,
    };
    return {
      addresses,
      ...(postgres ? { postgres } : {}),
      ...(bouncer ? { bouncer } : {}),
      ...(nats ? { nats } : {}),
      ...(redisCluster ? { redisCluster } : {}),
      ...(sentinel ? { sentinel } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
