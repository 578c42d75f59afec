import path from 'node:path';
import { migrateServiceSchema } from '@latchkey/outbox';
import type { Logger } from '@latchkey/telemetry';
import type { PasskeysConfig } from './config';
import { PASSKEYS_SCHEMA } from './passkeys-service';

/** `passkeys migrate`: brings schema `passkeys` up to date, then exits. */
export async function migrate(config: Pick<PasskeysConfig, 'DATABASE_URL' | 'DATABASE_SESSION_URL'>, logger: Logger): Promise<void> {
  await migrateServiceSchema({
    // The advisory lock is held across statements: a session of its own, not a transaction pool's.
    databaseUrl: config.DATABASE_SESSION_URL ?? config.DATABASE_URL,
    schema: PASSKEYS_SCHEMA,
    directory: path.resolve(__dirname, '../migrations'),
    logger,
  });
}
