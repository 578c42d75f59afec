import path from 'node:path';
import pg from 'pg';
import { readMigrations, runMigrations } from '@latchkey/db';
import { outboxMigrations } from '@latchkey/outbox';
import type { Logger } from '@latchkey/telemetry';
import type { OAuthConfig } from './config';
import { OAUTH_SCHEMA } from './oauth-service';

/** `oauth migrate`: brings schema `oauth` up to date, then exits. */
export async function migrate(config: Pick<OAuthConfig, 'DATABASE_URL'>, logger: Logger): Promise<void> {
  const client = new pg.Client({ connectionString: config.DATABASE_URL });
  await client.connect();
  try {
    const migrations = [
      ...(await outboxMigrations()),
      ...(await readMigrations('oauth', path.resolve(__dirname, '../migrations'))),
    ];
    const applied = await runMigrations(client, OAUTH_SCHEMA, migrations);
    logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
  } finally {
    await client.end();
  }
}
