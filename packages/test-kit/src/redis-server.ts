import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';

export interface OwnRedisServer {
  readonly url: string;
  /** Writes a snapshot (SAVE) and keeps a copy of it; answers the copy's path. */
  snapshot(): Promise<string>;
  /** Kills the server (SIGKILL: nothing more is saved). */
  kill(): Promise<void>;
  /** Starts it again on the same port, from `snapshot` when given (a restore), else empty. */
  start(snapshot?: string): Promise<void>;
  /** Stops it and removes its files. */
  stop(): Promise<void>;
}

/**
 * A standalone Redis of the test's own on a loopback port (the Debian
 * redis-server), for tests that crash it or roll it back to a snapshot.
 */
export async function startOwnRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'latchkey-redis-'));
  const dump = path.join(dir, 'dump.rdb');
  let current: ManagedProcess | undefined;
  let snapshots = 0;
  const start = async (snapshot?: string): Promise<void> => {
    rmSync(dump, { force: true });
    if (snapshot !== undefined) copyFileSync(snapshot, dump);
    current = startProcess(`redis-${port}`, 'redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--dbfilename', 'dump.rdb',
      '--save', '',
      '--appendonly', 'no',
    ], { cwd: dir, env: { PATH: process.env.PATH } });
    await current.waitForOutput(/Ready to accept connections/);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async snapshot() {
      const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
      try {
        await redis.save();
      } finally {
        redis.disconnect();
      }
      snapshots += 1;
      const copy = path.join(dir, `snapshot-${snapshots}.rdb`);
      copyFileSync(dump, copy);
      return copy;
    },
    async kill() {
      current?.child.kill('SIGKILL');
      await current?.stop(1_000);
      current = undefined;
    },
    start,
    async stop() {
      await current?.stop(2_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
