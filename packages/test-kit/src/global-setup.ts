import { existsSync } from 'node:fs';

/**
 * Where a Docker engine exists and the backing services are not given by
 * environment, start them with testcontainers; elsewhere (as on our build
 * machines) the tests use the local services. Workers inherit process.env.
 */
export default async function globalSetup(): Promise<void> {
  const dockerAvailable = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
  const missing = ['DATABASE_URL', 'REDIS_URL', 'NATS_URL'].filter((name) => !process.env[name]);
  if (!dockerAvailable || missing.length === 0 || process.env.LATCHKEY_TEST_LOCAL_SERVICES === 'true') return;

  const { GenericContainer, Wait } = await import('testcontainers');
  const [postgres, redis, nats] = await Promise.all([
    new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine').withExposedPorts(6379).start(),
    new GenericContainer('nats:2.10-alpine').withCommand(['-js']).withExposedPorts(4222).start(),
  ]);
  process.env.DATABASE_URL ??= `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
  process.env.REDIS_URL ??= `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  process.env.NATS_URL ??= `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  (globalThis as { __latchkeyContainers?: { stop(): Promise<unknown> }[] }).__latchkeyContainers = [postgres, redis, nats];
}
