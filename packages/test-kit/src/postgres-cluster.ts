import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';
import { waitFor } from './wait-for';

/** The PostgreSQL binaries of the Debian package; POSTGRES_BIN_DIR for another install. */
const BIN = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** The OS user PostgreSQL and PgBouncer run as: they refuse root, which CI is. */
export function postgresOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  };
}

/** A temporary directory the PostgreSQL OS user owns. */
export function postgresScratch(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const user = postgresOsUser();
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

function runAsPostgres(command: string, args: readonly string[], cwd: string): void {
  const user = postgresOsUser();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000, ...(user ?? {}) });
  if (result.status !== 0) throw new Error(`${path.basename(command)} failed:\n${result.stdout}\n${result.stderr}`);
}

export interface PostgresServer {
  readonly port: number;
  /** A URL as user postgres to `database` (default `postgres`). */
  url(database?: string): string;
  /** Fast shutdown (SIGINT: open transactions roll back, connections end), then start again on the same port. */
  restart(): Promise<void>;
}

export interface OwnPostgresCluster {
  readonly primary: PostgresServer;
  /** A streaming replica of the primary (pg_basebackup -R), read-only. */
  readonly replica: PostgresServer;
  /** Waits until the replica has replayed everything the primary has written. */
  waitForReplica(timeoutMs?: number): Promise<void>;
  /** Stops both servers and removes their files. */
  stop(): Promise<void>;
}

/**
 * A PostgreSQL primary and a streaming replica of the test's own, created
 * under a temporary directory with the Debian binaries (initdb,
 * pg_basebackup -R) and run on loopback ports as the `postgres` OS user.
 * The machine's own server is neither used nor changed. Authentication is
 * trust on 127.0.0.1, replication included.
 */
export async function startPostgresCluster(): Promise<OwnPostgresCluster> {
  const dir = postgresScratch('latchkey-pg-cluster-');
  const user = postgresOsUser();
  const primaryData = path.join(dir, 'primary');
  const replicaData = path.join(dir, 'replica');
  const running = new Map<string, ManagedProcess>();
  const env = { PATH: process.env.PATH, LANG: 'C.UTF-8' };

  const start = async (data: string, port: number): Promise<void> => {
    const child = startProcess(`postgres-${port}`, path.join(BIN, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-h', '127.0.0.1'], {
      cwd: dir,
      env,
      user,
    });
    await child.waitForOutput(/database system is ready to accept (read-only )?connections/, 60_000);
    running.set(data, child);
  };
  const stopServer = async (data: string): Promise<void> => {
    const child = running.get(data);
    if (!child) return;
    running.delete(data);
    // SIGINT is PostgreSQL's fast shutdown; SIGTERM would wait for every client to leave.
    child.child.kill('SIGINT');
    await child.stop(30_000);
  };
  const stop = async (): Promise<void> => {
    await stopServer(replicaData);
    await stopServer(primaryData);
    rmSync(dir, { recursive: true, force: true });
  };

  const primaryPort = await freePort();
  const replicaPort = await freePort();
  try {
    runAsPostgres(path.join(BIN, 'initdb'), ['-D', primaryData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], dir);
    appendFileSync(
      path.join(primaryData, 'postgresql.conf'),
      ['wal_level = replica', 'max_wal_senders = 5', 'hot_standby = on', 'fsync = off', 'max_connections = 200', "listen_addresses = '127.0.0.1'", ''].join('\n'),
    );
    appendFileSync(path.join(primaryData, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await start(primaryData, primaryPort);
    runAsPostgres(path.join(BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaData, '-R', '-X', 'stream'], dir);
    await start(replicaData, replicaPort);
  } catch (error) {
    await stop();
    throw error;
  }

  const server = (data: string, port: number): PostgresServer => ({
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async restart() {
      await stopServer(data);
      await start(data, port);
    },
  });
  const cluster: OwnPostgresCluster = {
    primary: server(primaryData, primaryPort),
    replica: server(replicaData, replicaPort),
    async waitForReplica(timeoutMs = 30_000) {
      const primary = new pg.Client({ connectionString: cluster.primary.url() });
      const replica = new pg.Client({ connectionString: cluster.replica.url() });
      await primary.connect();
      await replica.connect();
      try {
        const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
        await waitFor(
          async () => {
            const caught = await replica.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0]!.lsn]);
            return caught.rows[0]?.ok ? true : undefined;
          },
          { timeoutMs, description: 'the replica to replay the primary' },
        );
      } finally {
        await primary.end();
        await replica.end();
      }
    },
    stop,
  };
  return cluster;
}
