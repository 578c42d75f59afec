import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';
import { waitFor } from './wait-for';

export interface RedisClusterNode {
  readonly port: number;
  readonly address: string;
  /** Kills the node at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
}

export interface OwnRedisCluster {
  readonly nodes: readonly RedisClusterNode[];
  /** REDIS_CLUSTER_NODES: every node, `host:port,...`. */
  readonly seeds: string;
  /** The password every node requires (REDIS_PASSWORD). */
  readonly password: string;
  /** The node serving `key` as master right now. */
  masterOf(key: string): Promise<RedisClusterNode>;
  /** Waits until every slot is served again and the cluster says ok. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes their files. */
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of the test's own on loopback ports: `masters` masters,
 * each with `replicasPerMaster` replicas, from the machine's redis-server
 * (the Debian package), with a password and a short node timeout so that a
 * replica of a killed master is promoted within seconds.
 */
export async function startRedisCluster(
  options: { masters?: number; replicasPerMaster?: number; password?: string } = {},
): Promise<OwnRedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const password = options.password ?? 'cluster-test-password';
  const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-redis-cluster-'));
  const processes = new Map<number, ManagedProcess>();
  const started: RedisClusterNode[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i += 1) {
      const port = await freePort();
      const busPort = await freePort();
      const child = startProcess(`redis-cluster-${port}`, 'redis-server', [
        '--port', String(port),
        '--cluster-port', String(busPort),
        '--bind', '127.0.0.1',
        '--dir', dir,
        '--dbfilename', `dump-${port}.rdb`,
        '--cluster-enabled', 'yes',
        '--cluster-config-file', `nodes-${port}.conf`,
        '--cluster-node-timeout', '2000',
        // A replica takes over however long it was cut off: these tests kill masters on purpose.
        '--cluster-replica-validity-factor', '0',
        '--requirepass', password,
        '--masterauth', password,
        '--save', '',
        '--appendonly', 'no',
      ], { cwd: dir, env: { PATH: process.env.PATH } });
      await child.waitForOutput(/Ready to accept connections/);
      processes.set(port, child);
      started.push({
        port,
        address: `127.0.0.1:${port}`,
        async kill() {
          child.child.kill('SIGKILL');
          await child.stop(1_000);
        },
      });
    }
    const create = spawnSync(
      'redis-cli',
      ['-a', password, '--no-auth-warning', '--cluster', 'create', ...started.map((n) => n.address), '--cluster-replicas', String(replicas), '--cluster-yes'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  } catch (error) {
    await Promise.all([...processes.values()].map((p) => p.stop(1_000)));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const live = () => started.filter((node) => processes.get(node.port)?.child.exitCode === null && processes.get(node.port)?.child.signalCode === null);
  const ask = async <T>(node: RedisClusterNode, work: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({ port: node.port, host: '127.0.0.1', password, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
    try {
      await redis.connect();
      return await work(redis);
    } finally {
      redis.disconnect();
    }
  };
  const cluster: OwnRedisCluster = {
    nodes: started,
    seeds: started.map((n) => n.address).join(','),
    password,
    async masterOf(key) {
      const [first] = live();
      if (!first) throw new Error('no node of the cluster is running');
      const slot = await ask(first, (redis) => redis.cluster('KEYSLOT', key));
      const slots = await ask(first, (redis) => redis.cluster('SLOTS'));
      const owner = slots.find(([from, to]) => slot >= from && slot <= to);
      const node = owner && started.find((n) => n.port === owner[2]?.[1]);
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    async waitUntilHealthy(timeoutMs = 30_000) {
      await waitFor(
        async () => {
          const states = await Promise.all(live().map((node) => ask(node, (redis) => redis.cluster('INFO'))));
          // Every node running agrees, and each master has a replica in sync.
          if (!states.every((info) => info.includes('cluster_state:ok'))) return undefined;
          const links = await Promise.all(live().map((node) => ask(node, (redis) => redis.info('replication'))));
          const replicasUp = links.filter((info) => info.includes('role:slave')).every((info) => info.includes('master_link_status:up'));
          return replicasUp ? true : undefined;
        },
        { timeoutMs, intervalMs: 200, description: 'the Redis Cluster to be healthy' },
      );
    },
    async stop() {
      await Promise.all([...processes.values()].map((p) => p.stop(2_000)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.waitUntilHealthy(60_000);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
