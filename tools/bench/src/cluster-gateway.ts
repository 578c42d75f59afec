import { createHash } from 'node:crypto';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { repositoryRoot } from '@latchkey/stack';
import { startProcess, startRedisCluster, type ManagedProcess, type OwnRedisCluster } from '@latchkey/test-kit';
import type { BenchTarget } from './bench-stack';

/** A second gateway of the launched stack, on a Redis Cluster of its own. */
export interface ClusterGateway {
  readonly url: string;
  readonly pid: number;
  /** Copies the sessions of `cookies` from the stack's Redis into the cluster, with their TTLs. */
  copySessions(cookies: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * For the me-cluster scenario: a Redis Cluster of 3 masters and 3 replicas
 * (the test kit's, from the machine's redis-server) and a gateway that
 * reaches the same services as the stack's but keeps sessions there, so
 * that the session check is measured on a cluster and on one Redis in the
 * same run, with the same sessions.
 */
export async function startClusterGateway(target: BenchTarget): Promise<ClusterGateway> {
  const environment = target.gatewayEnvironment;
  if (!environment) throw new Error('me-cluster runs only on a launched stack');
  const cluster: OwnRedisCluster = await startRedisCluster();
  let gateway: ManagedProcess | undefined;
  try {
    gateway = startProcess('gateway (Redis Cluster)', process.execPath, [path.join(repositoryRoot, 'gateway/dist/main.js')], {
      cwd: repositoryRoot,
      env: {
        ...environment,
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        REDIS_MODE: 'cluster',
        REDIS_CLUSTER_NODES: cluster.seeds,
        REDIS_PASSWORD: cluster.password,
      },
    });
    const ready = await gateway.waitForOutput(/\{[^\n]*"msg":"ready"[^\n]*\}/, 60_000);
    const url = String((JSON.parse(ready) as { url: string }).url);
    const running = gateway;
    return {
      url,
      pid: running.child.pid ?? 0,
      async copySessions(cookies) {
        const source = new Redis(target.baseline.redisUrl, { maxRetriesPerRequest: 1 });
        const nodes = cluster.seeds.split(',').map((address) => ({ host: '127.0.0.1', port: Number(address.split(':')[1]) }));
        const destination = new Cluster(nodes, { redisOptions: { password: cluster.password } });
        try {
          for (const cookie of cookies) {
            const key = `${target.baseline.redisKeyPrefix}session:${createHash('sha256').update(cookie).digest('base64url')}`;
            const [value, ttl] = await Promise.all([source.get(key), source.pttl(key)]);
            if (value === null || ttl <= 0) throw new Error(`the session of a seeded user is missing from ${target.baseline.redisUrl}`);
            await destination.set(key, value, 'PX', ttl);
          }
        } finally {
          source.disconnect();
          destination.disconnect();
        }
      },
      async stop() {
        await running.stop();
        await cluster.stop();
      },
    };
  } catch (error) {
    await gateway?.stop();
    await cluster.stop();
    throw error;
  }
}
