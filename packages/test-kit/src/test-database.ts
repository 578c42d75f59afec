import pg from 'pg';
import { testDatabaseAdminUrl } from './backing-services';
import { uniqueName } from './unique-name';
import { waitFor } from './wait-for';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file, so files never share rows. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = testDatabaseAdminUrl();
  const name = uniqueName(label);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => dropTestDatabase(adminUrl, name) };
}

/**
 * Drops a test database once the connections of the file that used it are
 * gone, and the roles named for it: the local stack gives each unit a role
 * of its own, `<database>_<unit>` (tools/stack, database-roles.ts), and
 * roles outlive a database, being the whole server's. `pool.end()` resolves when it has asked each connection to close,
 * not when the server has closed them; forcing the drop at that moment
 * terminates a backend that has not yet read the request, and the pool,
 * no longer listening, raises the server's 57P01 as an unhandled error.
 * Connections still open after the wait are terminated by `WITH (FORCE)`.
 */
export async function dropTestDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await waitFor(
      async () => {
        const { rows } = await admin.query<{ open: number }>(
          'SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        return rows[0]!.open === 0 ? true : undefined;
      },
      { timeoutMs: 2_000, intervalMs: 20, description: `the connections to ${name} to close` },
    ).catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const { rows } = await admin.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)', [`${name}_`]);
    for (const { rolname } of rows) await admin.query(`DROP ROLE IF EXISTS ${admin.escapeIdentifier(rolname)}`);
  } finally {
    await admin.end();
  }
}
