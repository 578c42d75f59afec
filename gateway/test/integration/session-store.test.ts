import { Redis } from 'ioredis';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { hashSessionToken, SessionStore } from '../../src/sessions/session-store';

const HOUR = 60 * 60 * 1000;
const policy = { slidingTtlMs: 168 * HOUR, maxLifetimeMs: 720 * HOUR, refreshThresholdPercent: 50, maxPerUser: 3 };

let redis: Redis;
let prefix: string;
let now: number;
let store: SessionStore;

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('sessions')}:`;
  now = Date.now();
  store = new SessionStore(redis, prefix, policy, () => now);
});

afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
});

afterAll(async () => {
  await redis.quit();
});

const create = (userId = 'user-1') => store.create({ userId, handle: 'ada', sessionEpoch: 0, methods: ['pwd'], userAgent: 'jest', ip: '127.0.0.1' });

describe('SessionStore', () => {
  it('keeps a user to maxPerUser sessions, ending the least recently used', async () => {
    const first = await create();
    now += 1_000;
    const second = await create();
    now += 1_000;
    const third = await create();
    // The first is used again, so the second is now the least recently used.
    now += 10 * 60 * 1000;
    expect(await store.authenticate(first.cookieValue)).toBeDefined();
    now += 1_000;
    const fourth = await create();
    expect(await store.authenticate(second.cookieValue)).toBeUndefined();
    for (const kept of [first, third, fourth]) expect(await store.authenticate(kept.cookieValue)).toBeDefined();
    expect((await store.list('user-1')).map((session) => session.publicId).sort()).toEqual(
      [first, third, fourth].map((created) => created.session.publicId).sort(),
    );
    expect(await redis.hlen(`${prefix}user-sessions:user-1`)).toBe(3);
    // Another user's sessions are theirs alone.
    await create('user-2');
    expect(await store.list('user-1')).toHaveLength(3);
  });

  it('stores only a hash of the cookie value, with the sliding expiry as the key’s TTL', async () => {
    const { cookieValue, session } = await create();
    expect(Buffer.from(cookieValue, 'base64url')).toHaveLength(32);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.join()).not.toContain(cookieValue);
    const raw = await redis.get(`${prefix}session:${hashSessionToken(cookieValue)}`);
    expect(raw).not.toContain(cookieValue);
    const ttl = await redis.pttl(`${prefix}session:${session.tokenHash}`);
    expect(ttl).toBeGreaterThan(168 * HOUR - 10_000);
    expect(ttl).toBeLessThanOrEqual(168 * HOUR);
  });

  it('authenticates a live cookie and refuses unknown or malformed ones', async () => {
    const { cookieValue, session } = await create();
    expect(await store.authenticate(cookieValue)).toMatchObject({ userId: 'user-1', handle: 'ada', publicId: session.publicId });
    expect(await store.authenticate(undefined)).toBeUndefined();
    expect(await store.authenticate('short')).toBeUndefined();
    expect(await store.authenticate('A'.repeat(43))).toBeUndefined();
  });

  it('reads a session stored before it kept the handle, without one', async () => {
    const { cookieValue, session } = await create();
    const key = `${prefix}session:${session.tokenHash}`;
    const stored = JSON.parse((await redis.get(key))!) as Record<string, unknown>;
    expect(stored.h).toBe('ada');
    delete stored.h;
    await redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    expect(await store.authenticate(cookieValue)).toMatchObject({ userId: 'user-1', handle: undefined });
  });

  it('extends the sliding expiry only below the threshold, keeping the absolute limit', async () => {
    const { cookieValue, session } = await create();
    now += 80 * HOUR;
    expect((await store.authenticate(cookieValue))?.expiresAt).toBe(session.expiresAt);
    now += 10 * HOUR;
    const refreshed = await store.authenticate(cookieValue);
    expect(refreshed?.expiresAt).toBe(now + 168 * HOUR);
    expect(refreshed?.maxExpiresAt).toBe(session.maxExpiresAt);
  });

  it('ends a session at its sliding expiry without activity, and at the absolute limit despite activity', async () => {
    const idle = await create();
    now += 168 * HOUR;
    expect(await store.authenticate(idle.cookieValue)).toBeUndefined();

    now = Date.now();
    const busy = await create();
    for (let hours = 0; hours < 720; hours += 100) {
      now = busy.session.createdAt + hours * HOUR;
      expect(await store.authenticate(busy.cookieValue)).toBeDefined();
    }
    now = busy.session.maxExpiresAt;
    expect(await store.authenticate(busy.cookieValue)).toBeUndefined();
  });

  it('lists, deletes by public id only within the owner, and ends all other sessions', async () => {
    const first = await create();
    now += 1;
    const second = await create();
    now += 1;
    const third = await create();
    const foreign = await create('user-2');
    expect((await store.list('user-1')).map((s) => s.publicId)).toEqual([
      third.session.publicId,
      second.session.publicId,
      first.session.publicId,
    ]);
    expect(await store.deleteByPublicId('user-2', first.session.publicId)).toBe(false);
    expect(await store.deleteByPublicId('user-1', first.session.publicId)).toBe(true);
    expect(await store.authenticate(first.cookieValue)).toBeUndefined();

    await store.deleteAllForUser('user-1', third.session.publicId);
    expect(await store.authenticate(second.cookieValue)).toBeUndefined();
    expect(await store.authenticate(third.cookieValue)).toBeDefined();
    expect(await store.authenticate(foreign.cookieValue)).toBeDefined();
    expect((await store.list('user-1')).map((s) => s.publicId)).toEqual([third.session.publicId]);
  });

  it('does not bring back a session deleted while a request refreshed it', async () => {
    const { cookieValue, session } = await create();
    now += 100 * HOUR;
    await store.delete(session);
    expect(await store.authenticate(cookieValue)).toBeUndefined();
    expect(await redis.exists(`${prefix}session:${session.tokenHash}`)).toBe(0);
  });

  it('keeps an account view per session, drops it from every session of the user, and keeps TTLs', async () => {
    const view = {
      id: 'user-1',
      handle: 'ada',
      email: 'ada@example.com',
      email_verified: true,
      email_verified_at: '2026-01-01T00:00:00.000Z',
      has_password: true,
      totp_enabled: false,
      passkeys_count: 0,
      created_at: '2026-01-01T00:00:00.000Z',
    };
    const first = await store.create({ userId: 'user-1', handle: 'ada', sessionEpoch: 0, methods: ['pwd'], userAgent: 'jest', ip: '127.0.0.1', profile: view });
    const second = await create();
    const other = await store.create({
      userId: 'user-2',
      handle: 'bob',
      sessionEpoch: 0,
      methods: ['pwd'],
      userAgent: 'jest',
      ip: '127.0.0.1',
      profile: { ...view, id: 'user-2' },
    });
    expect((await store.authenticate(first.cookieValue))?.profile).toEqual({ view, storedAt: now });

    await store.saveProfile(second.session, { ...view, totp_enabled: true });
    expect((await store.authenticate(second.cookieValue))?.profile?.view.totp_enabled).toBe(true);
    const ttlBefore = await redis.pttl(`${prefix}session:${second.session.tokenHash}`);

    await store.forgetProfiles('user-1');
    expect((await store.authenticate(first.cookieValue))?.profile).toBeUndefined();
    expect((await store.authenticate(second.cookieValue))?.profile).toBeUndefined();
    expect((await store.authenticate(other.cookieValue))?.profile?.view.id).toBe('user-2');
    expect(await redis.pttl(`${prefix}session:${second.session.tokenHash}`)).toBeGreaterThan(ttlBefore - 1_000);
  });

  it('does not bring back a deleted session when saving a view', async () => {
    const { cookieValue, session } = await create();
    await store.delete(session);
    await store.saveProfile(session, {
      id: 'user-1',
      handle: 'ada',
      email: 'ada@example.com',
      email_verified: true,
      email_verified_at: null,
      has_password: true,
      totp_enabled: false,
      passkeys_count: 0,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.authenticate(cookieValue)).toBeUndefined();
  });
});
