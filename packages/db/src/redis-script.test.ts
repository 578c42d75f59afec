import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { defineRedisScript } from './redis-script';

let redis: Redis;
let prefix: string;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
  prefix = `${uniqueName('redis_script')}:`;
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('defineRedisScript', () => {
  it('passes the keys and the arguments apart, and answers the reply', async () => {
    const setAndReport = defineRedisScript(
      redis,
      `redis.call('SET', KEYS[1], ARGV[1])
return {#KEYS, #ARGV, KEYS[2], ARGV[2]}`,
    );
    expect(await setAndReport([`${prefix}a`, `${prefix}b`], ['stored', 7])).toEqual([2, 2, `${prefix}b`, '7']);
    expect(await redis.get(`${prefix}a`)).toBe('stored');
  });

  it('takes any number of keys, arguments left out included', async () => {
    const counts = defineRedisScript(redis, 'return {#KEYS, #ARGV}');
    expect(await counts([])).toEqual([0, 0]);
    expect(await counts([`${prefix}x`])).toEqual([1, 0]);
    expect(await counts([], ['only', 'args'])).toEqual([0, 2]);
  });

  it('keeps scripts on one client apart, and a script defined twice works', async () => {
    const first = defineRedisScript(redis, "return 'first'");
    const second = defineRedisScript(redis, "return 'second'");
    const firstAgain = defineRedisScript(redis, "return 'first'");
    expect(await Promise.all([first([]), second([]), firstAgain([])])).toEqual(['first', 'second', 'first']);
  });

  it('sends the hash, and the text again once Redis has flushed its scripts', async () => {
    const connection = new Redis(testRedisUrl());
    const increment = defineRedisScript(connection, "return redis.call('INCRBY', KEYS[1], ARGV[1])");
    const id = await connection.client('ID');
    const lastCommand = async () => /\bcmd=(\S+)/.exec((await redis.client('LIST', 'ID', id)) as string)?.[1];
    const key = `${prefix}counter`;
    try {
      expect(await increment([key], [1])).toBe(1);
      expect(await increment([key], [2])).toBe(3);
      expect(await lastCommand()).toBe('evalsha');

      await redis.script('FLUSH');
      expect(await increment([key], [3])).toBe(6);
      expect(await lastCommand()).toBe('eval');
      expect(await increment([key], [4])).toBe(10);
      expect(await lastCommand()).toBe('evalsha');
    } finally {
      await connection.quit();
    }
  });
});
