import path from 'node:path';
import { migrateServiceSchema } from '@latchkey/outbox';
import type { Logger } from '@latchkey/telemetry';
import type { PostsConfig } from './config';
import { POSTS_SCHEMA } from './posts-service';

/**
 * `posts migrate`: brings schema `posts` up to date, then exits.
 * Schema `search`, which SearchPosts reads, is the jobs worker's (`jobs migrate`).
 */
export async function migrate(config: Pick<PostsConfig, 'DATABASE_URL' | 'DATABASE_SESSION_URL'>, logger: Logger): Promise<void> {
  await migrateServiceSchema({
    // The advisory lock is held across statements: a session of its own, not a transaction pool's.
    databaseUrl: config.DATABASE_SESSION_URL ?? config.DATABASE_URL,
    schema: POSTS_SCHEMA,
    directory: path.resolve(__dirname, '../migrations'),
    logger,
  });
}
