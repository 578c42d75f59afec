export { configSchema, loadJobsConfig, type JobsConfig } from './config';
export { startWorker, type Worker } from './worker';
export { migrateJobsSchema, JOBS_SCHEMA, SEARCH_SCHEMA } from './migrate';
export { renderMail, type RenderedMail } from './mail-templates';
export { messageIdForJob } from './send-email';
export { retryDelayMs, MAX_RETRY_DELAY_MS } from './retry-delay';
export { MAX_INDEXED_CONTENT_CHARS, TOMBSTONE_RETENTION_HOURS, purgeTombstones } from './search-index';
