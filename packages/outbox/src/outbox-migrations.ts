import path from 'node:path';
import { readMigrations, type Migration } from '@latchkey/db';

/** The outbox table's migrations, to run in every schema that enqueues jobs. */
export function outboxMigrations(): Promise<Migration[]> {
  return readMigrations('outbox', path.resolve(__dirname, '../migrations'));
}
