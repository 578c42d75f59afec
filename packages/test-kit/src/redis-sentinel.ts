import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';
import { waitFor } from './wait-for';

export interface OwnSentinelGroup {
  /** REDIS_SENTINELS: `host:port,...` of the three sentinels. */
  readonly sentinels: string;
  /** REDIS_SENTINEL_MASTER. */
  readonly masterName: string;
  /** REDIS_PASSWORD of master and replica, and REDIS_SENTINEL_PASSWORD of the sentinels. */
  readonly password: string;
  /** The port of the master the sentinels name now. */
  masterPort(): Promise<number>;
  /** Waits until every replica of the current master has acknowledged its writes (WAIT). */
  waitForReplicas(timeoutMs?: number): Promise<void>;
  /** Kills the current master (SIGKILL) and waits until the sentinels name the replica instead. */
  failOver(timeoutMs?: number): Promise<{ oldPort: number; newPort: number }>;
  /** Stops every process and removes their files. */
  stop(): Promise<void>;
}

const MASTER_NAME = 'latchkey-test';

/**
 * A Sentinel group of the test's own on loopback ports: a master, one
 * replica and three sentinels (quorum 2), from the machine's redis-server
 * and redis-sentinel (Debian packages), with passwords everywhere and a
 * one-second down-after, so that a failover takes seconds.
 */
export async function startSentinelGroup(options: { password?: string } = {}): Promise<OwnSentinelGroup> {
  const password = options.password ?? 'sentinel-test-password';
  const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-sentinel-'));
  const servers = new Map<number, ManagedProcess>();
  const sentinels: { port: number; process: ManagedProcess }[] = [];
  const env = { PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/sbin` };
  const startServer = async (port: number, replicaOf?: number): Promise<void> => {
    const child = startProcess(`redis-${port}`, 'redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--dbfilename', `dump-${port}.rdb`,
      '--requirepass', password,
      '--masterauth', password,
      '--save', '',
      '--appendonly', 'no',
      ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)]),
    ], { cwd: dir, env });
    await child.waitForOutput(/Ready to accept connections/);
    servers.set(port, child);
  };
  const stop = async (): Promise<void> => {
    await Promise.all([...sentinels.map((s) => s.process), ...servers.values()].map((p) => p.stop(2_000)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const masterPort = await freePort();
    await startServer(masterPort);
    await startServer(await freePort(), masterPort);
    for (let i = 0; i < 3; i += 1) {
      const port = await freePort();
      // Sentinel rewrites its configuration file: each needs one of its own.
      const config = path.join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `requirepass ${password}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel auth-pass ${MASTER_NAME} ${password}`,
          `sentinel sentinel-pass ${password}`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      const child = startProcess(`redis-sentinel-${port}`, 'redis-sentinel', [config], { cwd: dir, env });
      await child.waitForOutput(/Sentinel ID is/);
      sentinels.push({ port, process: child });
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const askSentinel = async <T>(work: (redis: Redis) => Promise<T>): Promise<T> => {
    let lastError: unknown;
    for (const sentinel of sentinels) {
      const redis = new Redis({ port: sentinel.port, host: '127.0.0.1', password, lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
      try {
        await redis.connect();
        return await work(redis);
      } catch (error) {
        lastError = error;
      } finally {
        redis.disconnect();
      }
    }
    throw lastError;
  };
  const masterPort = async (): Promise<number> => {
    const reply = (await askSentinel((redis) => redis.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME))) as [string, string];
    return Number(reply[1]);
  };
  const group: OwnSentinelGroup = {
    sentinels: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    masterName: MASTER_NAME,
    password,
    masterPort,
    async waitForReplicas(timeoutMs = 10_000) {
      const port = await masterPort();
      const redis = new Redis({ port, host: '127.0.0.1', password, maxRetriesPerRequest: 0 });
      try {
        await waitFor(async () => ((await redis.wait(1, 1_000)) >= 1 ? true : undefined), {
          timeoutMs,
          description: 'the replica to acknowledge the writes',
        });
      } finally {
        redis.disconnect();
      }
    },
    async failOver(timeoutMs = 30_000) {
      const oldPort = await masterPort();
      const master = servers.get(oldPort);
      master?.child.kill('SIGKILL');
      await master?.stop(1_000);
      const newPort = await waitFor(
        async () => {
          const port = await masterPort();
          return port !== oldPort ? port : undefined;
        },
        { timeoutMs, intervalMs: 200, description: 'the sentinels to promote the replica' },
      );
      // Promoted means named by the sentinels; writable means it has left replica mode.
      await waitFor(
        async () => {
          const redis = new Redis({ port: newPort, host: '127.0.0.1', password, maxRetriesPerRequest: 0 });
          try {
            return (await redis.info('replication')).includes('role:master') ? true : undefined;
          } finally {
            redis.disconnect();
          }
        },
        { timeoutMs, description: 'the promoted replica to take writes' },
      );
      return { oldPort, newPort };
    },
    stop,
  };
  // The sentinels know the replica and each other before anything depends on a failover.
  try {
    await waitFor(
      async () => {
        const info = (await askSentinel((redis) => redis.call('SENTINEL', 'master', MASTER_NAME))) as string[];
        const field = (name: string) => Number(info[info.indexOf(name) + 1]);
        return field('num-slaves') >= 1 && field('num-other-sentinels') >= 2 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'the sentinels to find the replica and each other' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return group;
}
