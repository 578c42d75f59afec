import path from 'node:path';
import { readMigrations, type Migration } from '@latchkey/db';

export { enqueueJob, OUTBOX_CHANNEL } from './enqueue';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { startBackgroundRelay, type BackgroundRelay, type BackgroundRelayOptions } from './background-relay';

/** The outbox table's migrations, to run in every schema that enqueues jobs. */
export function outboxMigrations(): Promise<Migration[]> {
  return readMigrations('outbox', path.resolve(__dirname, '../migrations'));
}
