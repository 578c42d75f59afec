import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { postListVersionKey, publishPostListVersion, readPostListVersion } from './post-list-version';

let redis: Redis;
let prefix: string;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('list-version')}:`;
});

afterEach(async () => {
  await redis.del(postListVersionKey(prefix));
});

afterAll(async () => {
  await redis.quit();
});

test('there is no version before the first publication', async () => {
  expect(await readPostListVersion(redis, prefix)).toBeNull();
});

test('every publication is a version no reader has seen before', async () => {
  const seen = new Set<string | null>([null]);
  for (let round = 0; round < 5; round++) {
    await publishPostListVersion(redis, prefix);
    const version = await readPostListVersion(redis, prefix);
    expect(seen.has(version)).toBe(false);
    seen.add(version);
  }
});

test('installations that share a Redis keep their versions apart', async () => {
  const other = `${uniqueName('list-version')}:`;
  await publishPostListVersion(redis, prefix);
  expect(await readPostListVersion(redis, other)).toBeNull();
  expect(await redis.exists(`${prefix}posts:list-version`)).toBe(1);
});

test('a Redis that restarts empty cannot bring back an old version', async () => {
  await publishPostListVersion(redis, prefix);
  const before = await readPostListVersion(redis, prefix);
  await redis.del(postListVersionKey(prefix));
  await publishPostListVersion(redis, prefix);
  expect(await readPostListVersion(redis, prefix)).not.toBe(before);
});
