import path from 'node:path';
import { migrateServiceSchema } from '@latchkey/outbox';
import type { Logger } from '@latchkey/telemetry';
import type { IdentityConfig } from './config';
import { IDENTITY_SCHEMA } from './identity-service';

/** `identity migrate`: brings schema `identity` up to date, then exits. */
export async function migrate(config: Pick<IdentityConfig, 'DATABASE_URL' | 'DATABASE_SESSION_URL'>, logger: Logger): Promise<void> {
  await migrateServiceSchema({
    // The advisory lock is held across statements: a session of its own, not a transaction pool's.
    databaseUrl: config.DATABASE_SESSION_URL ?? config.DATABASE_URL,
    schema: IDENTITY_SCHEMA,
    directory: path.resolve(__dirname, '../migrations'),
    logger,
  });
}
