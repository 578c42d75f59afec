import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import { sessionKey } from '@latchkey/session-keys';
import { repositoryRoot } from '@latchkey/stack';
import {
  startOwnRedisServer,
  startProcess,
  startRedisCluster,
  type ManagedProcess,
  type OwnRedisCluster,
  type OwnRedisServer,
} from '@latchkey/test-kit';
import type { BenchTarget } from './bench-stack';

export interface BenchGateway {
  readonly url: string;
  readonly pid: number;
}

/** Two more gateways of the launched stack: one on a Redis of its own, one on a Redis Cluster. */
export interface RedisGateways {
  readonly standalone: BenchGateway;
  readonly cluster: BenchGateway;
  /** Copies the sessions of `cookies` from the stack's Redis into both, with their TTLs. */
  copySessions(cookies: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * For the me-cluster scenario: a Redis Cluster of 3 masters and 3 replicas
 * and a single Redis, both private (the test kit's, from the machine's
 * redis-server, so that neither competes with what else uses the machine's
 * Redis), and a gateway on each that reaches the stack's services. The
 * session check is then measured on a cluster and on one Redis in the same
 * run, with the same sessions, by gateways started alike.
 */
export async function startRedisGateways(target: BenchTarget): Promise<RedisGateways> {
  const environment = target.gatewayEnvironment;
  if (!environment) throw new Error('me-cluster runs only on a launched stack');
  const started: { stop(): Promise<unknown> }[] = [];
  const stop = async () => {
    for (const part of started.reverse()) await part.stop();
  };
  const startGateway = async (name: string, redis: Record<string, string>): Promise<BenchGateway> => {
    const gateway: ManagedProcess = startProcess(name, process.execPath, [path.join(repositoryRoot, 'gateway/dist/main.js')], {
      cwd: repositoryRoot,
      env: { ...environment, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', ...redis },
    });
    started.push(gateway);
    const ready = await gateway.waitForOutput(/\{[^\n]*"msg":"ready"[^\n]*\}/, 60_000);
    return { url: String((JSON.parse(ready) as { url: string }).url), pid: gateway.child.pid ?? 0 };
  };
  try {
    const single: OwnRedisServer = await startOwnRedisServer();
    started.push(single);
    const cluster: OwnRedisCluster = await startRedisCluster();
    started.push(cluster);
    const standalone = await startGateway('gateway (one Redis)', { REDIS_MODE: 'standalone', REDIS_URL: single.url });
    const onCluster = await startGateway('gateway (Redis Cluster)', {
      REDIS_MODE: 'cluster',
      REDIS_CLUSTER_NODES: cluster.seeds,
      REDIS_PASSWORD: cluster.password,
    });
    return {
      standalone,
      cluster: onCluster,
      async copySessions(cookies) {
        const source = new Redis(target.baseline.redisUrl, { maxRetriesPerRequest: 1 });
        const toSingle = new Redis(single.url, { maxRetriesPerRequest: 1 });
        const nodes = cluster.seeds.split(',').map((address) => ({ host: '127.0.0.1', port: Number(address.split(':')[1]) }));
        const toCluster = new Cluster(nodes, { redisOptions: { password: cluster.password } });
        try {
          for (const cookie of cookies) {
            const key = sessionKey(target.baseline.redisKeyPrefix, hashOpaqueToken(cookie));
            const [value, ttl] = await Promise.all([source.get(key), source.pttl(key)]);
            if (value === null || ttl <= 0) throw new Error(`the session of a seeded user is missing from ${target.baseline.redisUrl}`);
            await Promise.all([toSingle.set(key, value, 'PX', ttl), toCluster.set(key, value, 'PX', ttl)]);
          }
        } finally {
          source.disconnect();
          toSingle.disconnect();
          toCluster.disconnect();
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
