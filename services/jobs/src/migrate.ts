import path from 'node:path';
import pg from 'pg';
import { readMigrations, runMigrations } from '@latchkey/db';
import { searchIndex } from '@latchkey/jobs-contract';

/** The PostgreSQL schema the worker owns for its own bookkeeping. */
export const JOBS_SCHEMA = 'jobs';
/** The schema of the search index, which only the worker writes. */
export const SEARCH_SCHEMA = searchIndex.schema;

/**
 * Brings schemas `jobs` and `search` up to date and returns the ids of the
 * migrations it applied. Each schema has its own migrations folder and
 * its own `schema_migrations` table. The folders are found relative to
 * this file, which sits in `src/` under jest and in `dist/` in production;
 * both are beside `migrations/`.
 */
export async function migrateJobsSchema(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'latchkey-jobs-migrate' });
  await client.connect();
  try {
    const folder = path.resolve(__dirname, '../migrations');
    const applied = await runMigrations(client, JOBS_SCHEMA, await readMigrations(JOBS_SCHEMA, folder));
    const search = await readMigrations(SEARCH_SCHEMA, path.join(folder, SEARCH_SCHEMA));
    return [...applied, ...(await runMigrations(client, SEARCH_SCHEMA, search))];
  } finally {
    await client.end();
  }
}
