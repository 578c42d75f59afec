export { createPool, quoteIdentifier, schemaOf, type PoolSettings } from './pool';
export { withTransaction, isUniqueViolation, type TimeBudget } from './transaction';
export { readMigrations, runMigrations, type Migration } from './migrations';
export { createRedisClient, settledConnection, type RedisClient, type RedisClientOptions, type RedisSettings } from './redis-client';
export { defineRedisScript, type RedisScript } from './redis-script';
export { execTransaction } from './redis-transaction';
export { getEach, deleteEach } from './redis-slots';
export { sessionUrlOf, type DatabaseUrls } from './session-url';
