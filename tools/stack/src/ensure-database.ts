import pg from 'pg';
import { databaseNameOf } from './stack-environment';

/** PostgreSQL's SQLSTATE for CREATE DATABASE of a name that exists. */
const DUPLICATE_DATABASE = '42P04';

function hasCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

/**
 * Creates the database `databaseUrl` names unless it exists, connecting to
 * the `postgres` database of the same server (a database cannot be created
 * from a connection to itself, and it may not exist yet). Returns whether
 * it created one.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount !== 0) return false;
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      // Another stack (a parallel test file) created it between our check and now.
      if (hasCode(error, DUPLICATE_DATABASE)) return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}
