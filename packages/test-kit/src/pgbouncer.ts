import { chownSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';
import { startProcess, type ManagedProcess } from './managed-process';
import { postgresOsUser, postgresScratch } from './postgres-cluster';

export interface OwnPgBouncer {
  readonly port: number;
  /** A URL through PgBouncer as user postgres to `database`. */
  url(database: string): string;
  /** Stops PgBouncer and removes its files. */
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode of the test's own (the Debian package), on
 * a loopback port in front of `postgresPort`, for every database and role:
 * what a platform team puts between the units and PostgreSQL. Like production,
 * it accepts no startup parameter but the few it tracks, and hands every
 * transaction whichever server connection is free.
 */
export async function startPgBouncer(options: { postgresPort: number; poolSize?: number }): Promise<OwnPgBouncer> {
  const dir = postgresScratch('latchkey-pgbouncer-');
  const port = await freePort();
  const config = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${options.postgresPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${users}`,
      // The units' own roles are not in the file: PgBouncer looks them up in the server, as postgres.
      'auth_user = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 40}`,
      'max_client_conn = 1000',
      // A restarted server is reconnected to at once, not after the default 15 s.
      'server_login_retry = 1',
      'server_check_delay = 0',
      '',
    ].join('\n'),
  );
  const user = postgresOsUser();
  if (user) {
    chownSync(config, user.uid, user.gid);
    chownSync(users, user.uid, user.gid);
  }
  const child: ManagedProcess = startProcess('pgbouncer', process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer', [config], {
    cwd: dir,
    env: { PATH: process.env.PATH },
    user,
  });
  await child.waitForOutput(/process up|listening on/);
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      // SIGINT: PgBouncer's immediate shutdown.
      child.child.kill('SIGINT');
      await child.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
