export { enqueueJob, OUTBOX_CHANNEL } from './enqueue';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export { startBackgroundRelay, type BackgroundRelay, type BackgroundRelayOptions } from './background-relay';
export { outboxMigrations } from './outbox-migrations';
export { migrateServiceSchema, serviceSchemaMigration } from './migrate-service-schema';
export { openServiceStores, type ServiceStores, type ServiceStoreOptions, type ServiceStoreSettings } from './service-stores';
