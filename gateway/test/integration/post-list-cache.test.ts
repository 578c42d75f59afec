import { Redis } from 'ioredis';
import { postListVersionKey } from '@latchkey/post-list-version';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { MAX_PAGE_AGE_MS, PostListCache, type PostListCacheOutcome } from '../../src/posts/post-list-cache';

let redis: Redis;
let prefix: string;
let now: number;
let cache: PostListCache<string>;
let fetches: number;
let outcomes: PostListCacheOutcome[];

/** A fetch that answers which fetch it was, so a test sees whether a page was kept or fetched again. */
const fetchPage = async (): Promise<string> => `page ${String(++fetches)}`;
const publishVersion = (version: string) => redis.set(postListVersionKey(prefix), version);

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('post-list')}:`;
  now = Date.now();
  fetches = 0;
  outcomes = [];
  cache = new PostListCache(redis, prefix, { now: () => now, onOutcome: (outcome) => outcomes.push(outcome) });
});

afterEach(async () => {
  await redis.del(postListVersionKey(prefix));
});

afterAll(async () => {
  await redis.quit();
});

describe('PostListCache', () => {
  it('keeps a page while the published version stays the same, per page size', async () => {
    await publishVersion('v1');
    expect(await cache.newest(undefined, fetchPage)).toBe('page 1');
    expect(await cache.newest(undefined, fetchPage)).toBe('page 1');
    expect(await cache.newest(5, fetchPage)).toBe('page 2');
    expect(await cache.newest(5, fetchPage)).toBe('page 2');
    expect(fetches).toBe(2);
    expect(outcomes).toEqual(['miss', 'hit', 'miss', 'hit']);
  });

  it('fetches again once a write has published a new version', async () => {
    await publishVersion('v1');
    expect(await cache.newest(20, fetchPage)).toBe('page 1');
    await publishVersion('v2');
    expect(await cache.newest(20, fetchPage)).toBe('page 2');
    expect(await cache.newest(20, fetchPage)).toBe('page 2');
  });

  it('keeps a page while no version is published, but never past its maximum age', async () => {
    expect(await cache.newest(20, fetchPage)).toBe('page 1');
    now += MAX_PAGE_AGE_MS - 1;
    expect(await cache.newest(20, fetchPage)).toBe('page 1');
    now += 1;
    expect(await cache.newest(20, fetchPage)).toBe('page 2');
  });

  it('shares one fetch among concurrent misses', async () => {
    await publishVersion('v1');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowFetch = async () => {
      await gate;
      return fetchPage();
    };
    const pages = Promise.all([1, 2, 3, 4].map(() => cache.newest(20, slowFetch)));
    // Every caller has read the version and is waiting for the one fetch.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await pages).toEqual(['page 1', 'page 1', 'page 1', 'page 1']);
    expect(fetches).toBe(1);
  });

  it('does not keep a failed fetch', async () => {
    await publishVersion('v1');
    await expect(cache.newest(20, () => Promise.reject(new Error('posts unavailable')))).rejects.toThrow('posts unavailable');
    expect(await cache.newest(20, fetchPage)).toBe('page 1');
  });

  it('fetches every time while Redis cannot be asked for the version', async () => {
    const offline = new Redis(testRedisUrl(), { lazyConnect: true, enableOfflineQueue: false });
    const blind = new PostListCache<string>(offline, prefix, { onOutcome: (outcome) => outcomes.push(outcome) });
    expect(await blind.newest(20, fetchPage)).toBe('page 1');
    expect(await blind.newest(20, fetchPage)).toBe('page 2');
    expect(outcomes).toEqual(['bypassed', 'bypassed']);
    offline.disconnect();
  });
});
