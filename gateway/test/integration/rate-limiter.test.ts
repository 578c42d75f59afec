import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName, waitFor } from '@latchkey/test-kit';
import { RateLimiter } from '../../src/limits/rate-limiter';

let redis: Redis;
let limiter: RateLimiter;
let prefix: string;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
  prefix = `${uniqueName('rate')}:`;
  limiter = new RateLimiter(redis, prefix);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('RateLimiter', () => {
  it('allows up to the limit in a window and says when to retry', async () => {
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await limiter.hit('login', 'a@example.com', 3, 60));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]!.retryAfterSeconds).toBeGreaterThan(55);
    expect(results[3]!.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('counts concurrent hits exactly', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.hit('burst', 'ip', 5, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('keeps no raw subject in Redis', async () => {
    await limiter.hit('fail', 'Secret@Example.com', 2, 60);
    expect((await redis.keys(`${prefix}*`)).join()).not.toMatch(/secret/i);
  });

  it('sends its script by hash, and by text again once Redis has flushed it', async () => {
    const connection = new Redis(testRedisUrl());
    const scripted = new RateLimiter(connection, prefix);
    const id = await connection.client('ID');
    const lastCommand = async () => /\bcmd=(\S+)/.exec((await redis.client('LIST', 'ID', id)) as string)?.[1];
    try {
      await scripted.hit('flushed', 'y', 3, 60);
      await scripted.hit('flushed', 'y', 3, 60);
      expect(await lastCommand()).toBe('evalsha');

      await redis.script('FLUSH');
      const hit = await scripted.hit('flushed', 'y', 3, 60);
      expect(await lastCommand()).toBe('eval');
      expect(hit).toMatchObject({ allowed: true, count: 3 });
      expect(hit.retryAfterSeconds).toBeGreaterThan(55);
      expect(hit.retryAfterSeconds).toBeLessThanOrEqual(60);
    } finally {
      await connection.quit();
    }
  });

  it('opens again when the window ends', async () => {
    await limiter.hit('short', 'x', 1, 1);
    expect((await limiter.hit('short', 'x', 1, 1)).allowed).toBe(false);
    await waitFor(async () => ((await limiter.hit('short', 'x', 1, 1)).allowed ? true : undefined), {
      timeoutMs: 3_000,
      description: 'the one-second window to end',
    });
  });
});
