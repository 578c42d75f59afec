import path from 'node:path';
import pg from 'pg';
import { readMigrations, runMigrations } from '@latchkey/db';

/** The PostgreSQL schema the worker owns. */
export const JOBS_SCHEMA = 'jobs';

/**
 * Brings schema `jobs` up to date and returns the ids of the migrations it
 * applied. The folder is found relative to this file, which sits in `src/`
 * under jest and in `dist/` in production; both are beside `migrations/`.
 */
export async function migrateJobsSchema(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'latchkey-jobs-migrate' });
  await client.connect();
  try {
    const migrations = await readMigrations(JOBS_SCHEMA, path.resolve(__dirname, '../migrations'));
    return await runMigrations(client, JOBS_SCHEMA, migrations);
  } finally {
    await client.end();
  }
}
