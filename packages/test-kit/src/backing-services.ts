/**
 * Where tests find PostgreSQL, Redis and NATS: the variables the services
 * themselves read, set by the global setup when it starts containers, else
 * the machine's local services on their standard ports.
 */
export function testDatabaseAdminUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

export function testNatsUrl(): string {
  return process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}
