import path from 'node:path';
import pg from 'pg';
import { readMigrations, runMigrations } from '@latchkey/db';
import { outboxMigrations } from '@latchkey/outbox';
import type { Logger } from '@latchkey/telemetry';
import type { PostsConfig } from './config';
import { POSTS_SCHEMA } from './posts-service';

/**
 * `posts migrate`: brings schema `posts` up to date, then exits. Schema
 * `search`, which SearchPosts reads, is the jobs worker's (`jobs migrate`).
 */
export async function migrate(config: Pick<PostsConfig, 'DATABASE_URL'>, logger: Logger): Promise<void> {
  const client = new pg.Client({ connectionString: config.DATABASE_URL, application_name: 'latchkey-posts-migrate' });
  await client.connect();
  try {
    const migrations = [
      ...(await outboxMigrations()),
      ...(await readMigrations('posts', path.resolve(__dirname, '../migrations'))),
    ];
    const applied = await runMigrations(client, POSTS_SCHEMA, migrations);
    logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
  } finally {
    await client.end();
  }
}
