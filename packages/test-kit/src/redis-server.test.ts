import { Redis } from 'ioredis';
import { startOwnRedisServer, type OwnRedisServer } from './redis-server';

let server: OwnRedisServer;

beforeAll(async () => {
  server = await startOwnRedisServer();
});

afterAll(async () => {
  await server.stop();
});

/** One command on a fresh connection: the server restarts between them. */
async function withRedis<T>(use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(server.url, { maxRetriesPerRequest: 0, lazyConnect: true });
  await redis.connect();
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

test('a killed server comes back empty, or as the snapshot it is restored from', async () => {
  expect(server.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
  await withRedis((redis) => redis.set('kept', 'before the snapshot'));
  const snapshot = await server.snapshot();
  await withRedis((redis) => redis.set('lost', 'after the snapshot'));

  await server.kill();
  await expect(withRedis((redis) => redis.ping())).rejects.toThrow();

  await server.start(snapshot);
  expect(await withRedis((redis) => redis.mget('kept', 'lost'))).toEqual(['before the snapshot', null]);

  await server.kill();
  await server.start();
  expect(await withRedis((redis) => redis.dbsize())).toBe(0);
});
