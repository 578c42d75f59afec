import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { endSessions, endSessionsBefore, sessionEpochOf, sessionKey, userSessionsKey } from './session-keys';

let redis: Redis;
let prefix: string;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('session-keys')}:`;
});

afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
});

afterAll(async () => {
  await redis.quit();
});

/** A session as the gateway stores it: its record (with the epoch as `k`, or none) and its entry in the user's index. */
async function store(userId: string, publicId: string, epoch: number | undefined): Promise<{ publicId: string; tokenHash: string }> {
  const tokenHash = `hash-${publicId}`;
  await redis.set(sessionKey(prefix, tokenHash), JSON.stringify({ u: userId, p: publicId, ...(epoch === undefined ? {} : { k: epoch }) }), 'PX', 60_000);
  await redis.hset(userSessionsKey(prefix, userId), publicId, tokenHash);
  return { publicId, tokenHash };
}

const recordExists = async (tokenHash: string): Promise<boolean> => (await redis.exists(sessionKey(prefix, tokenHash))) === 1;
const indexed = async (userId: string): Promise<string[]> => (await redis.hkeys(userSessionsKey(prefix, userId))).sort();

test('the layout is the one live sessions were stored under: a change to it signs everybody out at the next deploy', () => {
  expect(sessionKey('lk:', 'abc')).toBe('lk:session:abc');
  expect(userSessionsKey('lk:', 'user-1')).toBe('lk:user-sessions:user-1');
  expect(sessionKey('', 'abc')).toBe('session:abc');
});

test('the epoch of a stored session is its k, and 0 for records written before it was kept or unreadable', () => {
  expect(sessionEpochOf(JSON.stringify({ u: 'user-1', k: 4 }))).toBe(4);
  expect(sessionEpochOf(JSON.stringify({ u: 'user-1' }))).toBe(0);
  expect(sessionEpochOf(JSON.stringify({ k: '4' }))).toBe(0);
  expect(sessionEpochOf('not json')).toBe(0);
});

test('endSessions ends the sessions given, record and index entry, and no other', async () => {
  const ending = await store('user-1', 'a', 1);
  const kept = await store('user-1', 'b', 1);
  const other = await store('user-2', 'c', 1);
  await endSessions(redis, prefix, 'user-1', [ending]);
  expect(await recordExists(ending.tokenHash)).toBe(false);
  expect(await recordExists(kept.tokenHash)).toBe(true);
  expect(await recordExists(other.tokenHash)).toBe(true);
  expect(await indexed('user-1')).toEqual(['b']);
  expect(await indexed('user-2')).toEqual(['c']);

  // Nothing to end touches nothing.
  await endSessions(redis, prefix, 'user-1', []);
  expect(await indexed('user-1')).toEqual(['b']);
});

test('endSessionsBefore ends the sessions of earlier epochs, prunes index entries of records gone, and counts only the live ones it ended', async () => {
  const legacy = await store('user-1', 'legacy', undefined);
  const older = await store('user-1', 'older', 2);
  const current = await store('user-1', 'current', 3);
  const expired = await store('user-1', 'expired', 3);
  await redis.del(sessionKey(prefix, expired.tokenHash));

  expect(await endSessionsBefore(redis, prefix, 'user-1', 3)).toBe(2);
  expect(await recordExists(legacy.tokenHash)).toBe(false);
  expect(await recordExists(older.tokenHash)).toBe(false);
  expect(await recordExists(current.tokenHash)).toBe(true);
  expect(await indexed('user-1')).toEqual(['current']);

  // An account that goes ends them all; a user without sessions has none to end.
  expect(await endSessionsBefore(redis, prefix, 'user-1', Number.POSITIVE_INFINITY)).toBe(1);
  expect(await indexed('user-1')).toEqual([]);
  expect(await endSessionsBefore(redis, prefix, 'nobody', Number.POSITIVE_INFINITY)).toBe(0);
});
