import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdentifier } from './pool';

/** One versioned, forward-only schema change. */
export interface Migration {
  /** Unique and sortable within its source, e.g. `identity/001_users.sql`. */
  readonly id: string;
  readonly sql: string;
}

/** Reads `NNN_name.sql` files of a folder, in order, as migrations of `source`. */
export async function readMigrations(source: string, directory: string): Promise<Migration[]> {
  const files = (await readdir(directory)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => ({ id: `${source}/${file}`, sql: await readFile(path.join(directory, file), 'utf8') })),
  );
}

/**
 * Applies pending migrations to `schema`, each in its own transaction, under
 * an advisory lock so that two migrators never race. Migrations see the
 * schema as their search path, so their SQL names tables unqualified.
 *
 * The schema is created when it is missing. A unit's own role may have no
 * right to create schemas: the administrator then creates the schema owned
 * by it (docs/operations.md, "A PostgreSQL role per unit"), and it is not
 * created again, since CREATE SCHEMA IF NOT EXISTS checks the right to
 * create first.
 */
export async function runMigrations(
  client: pg.ClientBase,
  schema: string,
  migrations: readonly Migration[],
): Promise<string[]> {
  const quoted = quoteIdentifier(schema);
  const applied: string[] = [];
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`latchkey-migrate:${schema}`]);
  try {
    const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (existing.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
         id text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${quoted}.schema_migrations`);
    const done = new Set(rows.map((r) => r.id));
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${quoted}`);
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${quoted}.schema_migrations (id) VALUES ($1)`, [migration.id]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${migration.id} failed`, { cause: error });
      }
      applied.push(migration.id);
    }
  } finally {
    // On a broken connection the lock is gone with the session; keep the original error.
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`latchkey-migrate:${schema}`]).catch(() => undefined);
  }
  return applied;
}
