export { createPool, quoteIdentifier, type PoolSettings } from './pool';
export { withTransaction, isUniqueViolation } from './transaction';
export { readMigrations, runMigrations, type Migration } from './migrations';
export { createRedisClient } from './redis-client';
export { defineRedisScript, type RedisScript } from './redis-script';
