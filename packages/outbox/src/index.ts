export { enqueueJob, OUTBOX_CHANNEL } from './enqueue';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { startBackgroundRelay, type BackgroundRelay, type BackgroundRelayOptions } from './background-relay';
export { outboxMigrations } from './outbox-migrations';
export { migrateServiceSchema } from './migrate-service-schema';
