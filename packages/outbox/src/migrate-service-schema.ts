import pg from 'pg';
import { readMigrations, runMigrations, sessionUrlOf, type DatabaseUrls } from '@latchkey/db';
import type { Logger } from '@latchkey/telemetry';
import { outboxMigrations } from './outbox-migrations';

/**
 * `<service> migrate`: brings a service's schema up to date, the outbox
 * table first (every service that changes state enqueues jobs), then the
 * service's own `NNN_name.sql` files from `directory`.
 */
export async function migrateServiceSchema(options: {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly directory: string;
  readonly logger: Logger;
}): Promise<string[]> {
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: `latchkey-${options.schema}-migrate` });
  await client.connect();
  try {
    const migrations = [...(await outboxMigrations()), ...(await readMigrations(options.schema, options.directory))];
    const applied = await runMigrations(client, options.schema, migrations);
    options.logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
    return applied;
  } finally {
    await client.end();
  }
}

/**
 * The `migrate` command of a service whose schema is `schema` and whose own
 * migrations are in `directory`.
 */
export function serviceSchemaMigration(schema: string, directory: string): (config: DatabaseUrls, logger: Logger) => Promise<void> {
  return async (config, logger) => {
    // The advisory lock is held across statements: a session of its own, not a transaction pool's.
    await migrateServiceSchema({ databaseUrl: sessionUrlOf(config), schema, directory, logger });
  };
}
