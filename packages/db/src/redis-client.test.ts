import { freePort, startHungRedis, testRedisUrl } from '@latchkey/test-kit';
import { createRedisClient, settledConnection } from './redis-client';

const logger = { warn: () => undefined, info: () => undefined };

describe('settledConnection()', () => {
  it('is true once a reachable Redis is ready', async () => {
    const redis = createRedisClient({ REDIS_MODE: 'standalone', REDIS_URL: testRedisUrl() }, { connectionName: 'settled-test', logger, failFast: true });
    try {
      expect(await settledConnection(redis, 5_000)).toBe(true);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('is false as soon as the connection is refused', async () => {
    const redis = createRedisClient({ REDIS_MODE: 'standalone', REDIS_URL: `redis://127.0.0.1:${await freePort()}` }, { connectionName: 'settled-test', logger, failFast: true });
    try {
      // A refusal settles it long before the 60 s bound.
      expect(await settledConnection(redis, 60_000)).toBe(false);
    } finally {
      redis.disconnect();
    }
  });

  it('is false after the bound while Redis accepts connections and never answers', async () => {
    const hung = await startHungRedis('silent');
    const redis = createRedisClient({ REDIS_MODE: 'standalone', REDIS_URL: hung.url }, { connectionName: 'settled-test', logger, failFast: true });
    try {
      expect(await settledConnection(redis, 200)).toBe(false);
      await expect(redis.get('anything')).rejects.toThrow();
    } finally {
      redis.disconnect();
      await hung.close();
    }
  });
});
