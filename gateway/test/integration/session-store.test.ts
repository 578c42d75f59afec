import { Redis } from 'ioredis';
import { AppError } from '@latchkey/errors';
import { startRequestContext } from '@latchkey/grpc-kit';
import { endSessionsBefore, sessionEpochOf, sessionKey, userSessionsKey } from '@latchkey/session-keys';
import { createLogger } from '@latchkey/telemetry';
import { testRedisUrl, uniqueName } from '@latchkey/test-kit';
import { AccountStates, type AccountState } from '../../src/sessions/account-states';
import { hashSessionToken, SessionStore, type SessionEndAnnouncer } from '../../src/sessions/session-store';

const HOUR = 60 * 60 * 1000;
const policy = { slidingTtlMs: 168 * HOUR, maxLifetimeMs: 720 * HOUR, refreshThresholdPercent: 50, maxPerUser: 3 };
const ACCOUNT_STATE_MAX_AGE_MS = 2_000;

let redis: Redis;
let prefix: string;
let now: number;
let store: SessionStore;
/** What identity answers for each account; absent accounts are deleted ones. */
let accounts: Map<string, AccountState | Error>;
let accountLookups: number;
/** The session each lookup asked about, if any. */
let lookedUpSessions: (string | undefined)[];
let unknownLookups: number;
/** The sessions identity recorded as ended, per account, oldest first. */
let endedSessions: Map<string, string[]>;
/** How many of an account's ended sessions identity lists (the most recent). */
let endedListed: number;
let announced: Parameters<SessionEndAnnouncer>[0][];
let announceFailure: Error | undefined;

const context = startRequestContext({ requestId: 'session-store-test', logger: createLogger({ service: 'test', level: 'silent' }), deadline: Date.now() + HOUR }).context;
const auth = (cookieValue: string | undefined) => store.authenticate(cookieValue, () => context);
const list = (userId: string) => store.list(userId, () => context);

beforeAll(() => {
  redis = new Redis(testRedisUrl());
});

beforeEach(() => {
  prefix = `${uniqueName('sessions')}:`;
  now = Date.now();
  accounts = new Map([
    ['user-1', { sessionEpoch: 0, disabled: false }],
    ['user-2', { sessionEpoch: 0, disabled: false }],
  ]);
  accountLookups = 0;
  lookedUpSessions = [];
  unknownLookups = 0;
  endedSessions = new Map();
  endedListed = 100;
  announced = [];
  announceFailure = undefined;
  const states = new AccountStates(
    async (userId, sessionId) => {
      accountLookups += 1;
      lookedUpSessions.push(sessionId);
      const answer = accounts.get(userId);
      if (answer instanceof Error) throw answer;
      if (!answer) return undefined;
      // As identity answers: the most recent endings, and the session asked about if it ended.
      const ended = endedSessions.get(userId) ?? [];
      const ids = new Set(ended.slice(-endedListed));
      if (sessionId !== undefined && ended.includes(sessionId)) ids.add(sessionId);
      return { ...answer, endedSessions: { ids, complete: ended.length <= endedListed } };
    },
    { maxAgeMs: ACCOUNT_STATE_MAX_AGE_MS, maxEntries: 100, onUnknown: () => (unknownLookups += 1) },
    () => now,
  );
  store = new SessionStore(
    redis,
    prefix,
    policy,
    states,
    async (ending) => {
      if (announceFailure) throw announceFailure;
      announced.push(ending);
      endedSessions.set(ending.userId, [...(endedSessions.get(ending.userId) ?? []), ...ending.sessionIds]);
    },
    () => now,
  );
});

afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
});

afterAll(async () => {
  await redis.quit();
});

const create = (userId = 'user-1', sessionEpoch = 0) =>
  store.create({ userId, handle: 'ada', sessionEpoch, methods: ['pwd'], userAgent: 'jest', ip: '127.0.0.1' }, context);

describe('SessionStore', () => {
  it('keeps a user to maxPerUser sessions, ending the least recently used', async () => {
    const first = await create();
    now += 1_000;
    const second = await create();
    now += 1_000;
    const third = await create();
    // The first is used again, so the second is now the least recently used.
    now += 10 * 60 * 1000;
    expect(await auth(first.cookieValue)).toBeDefined();
    now += 1_000;
    const fourth = await create();
    expect(await auth(second.cookieValue)).toBeUndefined();
    for (const kept of [first, third, fourth]) expect(await auth(kept.cookieValue)).toBeDefined();
    expect((await list('user-1')).map((session) => session.publicId).sort()).toEqual(
      [first, third, fourth].map((created) => created.session.publicId).sort(),
    );
    expect(await redis.hlen(userSessionsKey(prefix, 'user-1'))).toBe(3);
    // Another user's sessions are theirs alone.
    await create('user-2');
    expect(await list('user-1')).toHaveLength(3);
  });

  it('stores only a hash of the cookie value, with the sliding expiry as the key’s TTL', async () => {
    const { cookieValue, session } = await create();
    expect(Buffer.from(cookieValue, 'base64url')).toHaveLength(32);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.join()).not.toContain(cookieValue);
    const raw = await redis.get(sessionKey(prefix, hashSessionToken(cookieValue)));
    expect(raw).not.toContain(cookieValue);
    const ttl = await redis.pttl(sessionKey(prefix, session.tokenHash));
    expect(ttl).toBeGreaterThan(168 * HOUR - 10_000);
    expect(ttl).toBeLessThanOrEqual(168 * HOUR);
  });

  it('authenticates a live cookie and refuses unknown or malformed ones', async () => {
    const { cookieValue, session } = await create();
    expect(await auth(cookieValue)).toMatchObject({ userId: 'user-1', handle: 'ada', publicId: session.publicId });
    expect(await auth(undefined)).toBeUndefined();
    expect(await auth('short')).toBeUndefined();
    expect(await auth('A'.repeat(43))).toBeUndefined();
  });

  it('reads a session stored before it kept the handle, without one', async () => {
    const { cookieValue, session } = await create();
    const key = sessionKey(prefix, session.tokenHash);
    const stored = JSON.parse((await redis.get(key))!) as Record<string, unknown>;
    expect(stored.h).toBe('ada');
    delete stored.h;
    await redis.set(key, JSON.stringify(stored), 'KEEPTTL');
    expect(await auth(cookieValue)).toMatchObject({ userId: 'user-1', handle: undefined });
  });

  it('extends the sliding expiry only below the threshold, keeping the absolute limit', async () => {
    const { cookieValue, session } = await create();
    now += 80 * HOUR;
    expect((await auth(cookieValue))?.expiresAt).toBe(session.expiresAt);
    now += 10 * HOUR;
    const refreshed = await auth(cookieValue);
    expect(refreshed?.expiresAt).toBe(now + 168 * HOUR);
    expect(refreshed?.maxExpiresAt).toBe(session.maxExpiresAt);
  });

  it('ends a session at its sliding expiry without activity, and at the absolute limit despite activity', async () => {
    const idle = await create();
    now += 168 * HOUR;
    expect(await auth(idle.cookieValue)).toBeUndefined();

    now = Date.now();
    const busy = await create();
    for (let hours = 0; hours < 720; hours += 100) {
      now = busy.session.createdAt + hours * HOUR;
      expect(await auth(busy.cookieValue)).toBeDefined();
    }
    now = busy.session.maxExpiresAt;
    expect(await auth(busy.cookieValue)).toBeUndefined();
  });

  it('lists, deletes by public id only within the owner, and ends all other sessions', async () => {
    const first = await create();
    now += 1;
    const second = await create();
    now += 1;
    const third = await create();
    const foreign = await create('user-2');
    expect((await list('user-1')).map((s) => s.publicId)).toEqual([
      third.session.publicId,
      second.session.publicId,
      first.session.publicId,
    ]);
    expect(await store.deleteByPublicId('user-2', first.session.publicId, 'session_revoked', context)).toBe(false);
    expect(await store.deleteByPublicId('user-1', first.session.publicId, 'session_revoked', context)).toBe(true);
    expect(await auth(first.cookieValue)).toBeUndefined();

    await store.deleteAllForUser('user-1', { reason: 'provider_linked', keepPublicId: third.session.publicId }, context);
    expect(await auth(second.cookieValue)).toBeUndefined();
    expect(await auth(third.cookieValue)).toBeDefined();
    expect(await auth(foreign.cookieValue)).toBeDefined();
    expect((await list('user-1')).map((s) => s.publicId)).toEqual([third.session.publicId]);
  });

  it('does not bring back a session deleted while a request refreshed it', async () => {
    const { cookieValue, session } = await create();
    now += 100 * HOUR;
    await store.delete(session, 'logout', context);
    expect(await auth(cookieValue)).toBeUndefined();
    expect(await redis.exists(sessionKey(prefix, session.tokenHash))).toBe(0);
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
      active_org: null,
    };
    const first = await store.create(
      { userId: 'user-1', handle: 'ada', sessionEpoch: 0, methods: ['pwd'], userAgent: 'jest', ip: '127.0.0.1', profile: view },
      context,
    );
    const second = await create();
    const other = await store.create(
      {
        userId: 'user-2',
        handle: 'bob',
        sessionEpoch: 0,
        methods: ['pwd'],
        userAgent: 'jest',
        ip: '127.0.0.1',
        profile: { ...view, id: 'user-2' },
      },
      context,
    );
    expect((await auth(first.cookieValue))?.profile).toEqual({ view, storedAt: now });

    await store.saveProfile(second.session, { ...view, totp_enabled: true });
    expect((await auth(second.cookieValue))?.profile?.view.totp_enabled).toBe(true);
    const ttlBefore = await redis.pttl(sessionKey(prefix, second.session.tokenHash));

    await store.forgetProfiles('user-1');
    expect((await auth(first.cookieValue))?.profile).toBeUndefined();
    expect((await auth(second.cookieValue))?.profile).toBeUndefined();
    expect((await auth(other.cookieValue))?.profile?.view.id).toBe('user-2');
    expect(await redis.pttl(sessionKey(prefix, second.session.tokenHash))).toBeGreaterThan(ttlBefore - 1_000);
  });

  it('does not bring back a deleted session when saving a view', async () => {
    const { cookieValue, session } = await create();
    await store.delete(session, 'logout', context);
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
      active_org: null,
    });
    expect(await auth(cookieValue)).toBeUndefined();
  });

  it('refuses and ends a session of an earlier credential epoch, of a disabled account, and of a deleted one', async () => {
    const older = await create('user-1', 0);
    const current = await create('user-1', 1);
    accounts.set('user-1', { sessionEpoch: 1, disabled: false });
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(older.cookieValue)).toBeUndefined();
    expect(await redis.exists(sessionKey(prefix, older.session.tokenHash))).toBe(0);
    expect(await auth(current.cookieValue)).toBeDefined();
    expect((await list('user-1')).map((session) => session.publicId)).toEqual([current.session.publicId]);

    accounts.set('user-1', { sessionEpoch: 1, disabled: true });
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(current.cookieValue)).toBeUndefined();

    const orphan = await create('user-2');
    accounts.delete('user-2');
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await store.inspect(orphan.cookieValue, () => context)).toBeUndefined();
    // Identity announced these: the store ends them without a word.
    expect(announced).toEqual([]);
  });

  it('asks identity once per account per max age, and stands on its last answer while identity is unavailable', async () => {
    const { cookieValue } = await create();
    await Promise.all([auth(cookieValue), auth(cookieValue), auth(cookieValue)]);
    expect(accountLookups).toBe(1);
    now += ACCOUNT_STATE_MAX_AGE_MS - 1;
    await auth(cookieValue);
    expect(accountLookups).toBe(1);
    now += 1;
    await auth(cookieValue);
    expect(accountLookups).toBe(2);

    // A revocation identity answered before its outage keeps holding, however old the answer.
    const older = await create('user-1', 0);
    const newer = await create('user-1', 3);
    accounts.set('user-1', { sessionEpoch: 3, disabled: false });
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(newer.cookieValue)).toBeDefined();
    accounts.set('user-1', new AppError('service:unavailable'));
    now += 24 * HOUR;
    expect(await auth(older.cookieValue)).toBeUndefined();
    expect(await auth(newer.cookieValue)).toBeDefined();
    expect(unknownLookups).toBe(0);

    // An account never heard of during the outage: its session stands on its own record, and that is counted.
    const stranger = await create('user-2');
    accounts.set('user-2', new AppError('service:unavailable'));
    expect(await auth(stranger.cookieValue)).toBeDefined();
    expect(unknownLookups).toBe(1);
    // Not an outage: never covered by an older answer.
    accounts.set('user-1', new AppError('internal:error'));
    await expect(auth(cookieValue)).rejects.toMatchObject({ code: 'internal:error' });
  });

  it('announces the sessions it ends, with the reason, before it ends them', async () => {
    const first = await create();
    now += 1;
    const second = await create();
    now += 1;
    const third = await create();
    await store.delete(first.session, 'logout', context);
    await store.deleteByPublicId('user-1', second.session.publicId, 'platform', context);
    expect(announced).toEqual([
      // Kept ended until the session's own absolute expiry; known by its index entry alone, a whole lifetime from now.
      { userId: 'user-1', reason: 'logout', sessionIds: [first.session.publicId], keptSessionId: '', expiresAt: new Date(first.session.maxExpiresAt) },
      { userId: 'user-1', reason: 'platform', sessionIds: [second.session.publicId], keptSessionId: '', expiresAt: new Date(now + 720 * HOUR) },
    ]);

    // Past maxPerUser, the least recently used goes, announced as such.
    now += 1;
    const fourth = await create();
    now += 1;
    const fifth = await create();
    now += 1;
    await create();
    expect(announced[2]).toMatchObject({ reason: 'session_limit', sessionIds: [third.session.publicId] });

    // An announcement that fails leaves the sessions alive: never ended unannounced.
    announceFailure = new AppError('service:unavailable');
    await expect(store.deleteAllForUser('user-1', { reason: 'email_changed', keepPublicId: fifth.session.publicId }, context)).rejects.toMatchObject({
      code: 'service:unavailable',
    });
    expect(await auth(fourth.cookieValue)).toBeDefined();

    // A change identity announced itself ends sessions without a second announcement.
    const before = announced.length;
    await store.deleteAllForUser('user-1', { reason: 'announced_by_identity' }, context);
    expect(announced).toHaveLength(before);
    expect(await list('user-1')).toEqual([]);
  });

  it('refuses a session ended one by one that Redis brings back, on every way in', async () => {
    const loggedOut = await create();
    const revoked = await create();
    const kept = await create();
    const records = await Promise.all(
      [loggedOut, revoked].map(async ({ session }) => ({ key: sessionKey(prefix, session.tokenHash), raw: (await redis.get(sessionKey(prefix, session.tokenHash)))! })),
    );
    // Fresh account state, as on a gateway that has just served these sessions.
    expect(await auth(loggedOut.cookieValue)).toBeDefined();
    await store.delete(loggedOut.session, 'logout', context);
    await store.deleteByPublicId('user-1', revoked.session.publicId, 'session_revoked', context);

    // A restored snapshot: the records are back, and so are their index entries.
    for (const { key, raw } of records) await redis.set(key, raw, 'PX', HOUR);
    await redis.hset(userSessionsKey(prefix, 'user-1'), loggedOut.session.publicId, loggedOut.session.tokenHash);
    await redis.hset(userSessionsKey(prefix, 'user-1'), revoked.session.publicId, revoked.session.tokenHash);
    expect(await auth(loggedOut.cookieValue)).toBeUndefined();
    expect(await store.inspect(revoked.cookieValue, () => context)).toBeUndefined();
    expect((await list('user-1')).map((session) => session.publicId)).toEqual([kept.session.publicId]);
    // Refused and deleted again, without a second announcement.
    expect(await redis.exists(...records.map((record) => record.key))).toBe(0);
    expect(announced).toHaveLength(2);
    expect(await auth(kept.cookieValue)).toBeDefined();
  });

  it('asks identity again after ending sessions, and keeps its last answer should identity then be unavailable', async () => {
    const older = await create('user-1', 0);
    const current = await create('user-1', 1);
    const other = await create('user-1', 1);
    accounts.set('user-1', { sessionEpoch: 1, disabled: false });
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(current.cookieValue)).toBeDefined();
    const lookups = accountLookups;
    await store.delete(other.session, 'logout', context);
    accounts.set('user-1', new AppError('service:unavailable'));
    // Within the max age, yet asked again; unavailable, the epoch learned before still refuses the older session.
    expect(await auth(older.cookieValue)).toBeUndefined();
    expect(accountLookups).toBe(lookups + 1);
    expect(unknownLookups).toBe(0);
    expect(await auth(current.cookieValue)).toBeDefined();
  });

  it('asks about a session by its id when identity lists only the most recent endings, once per max age', async () => {
    const older = await create();
    now += 1;
    const live = await create();
    now += 1;
    const newer = await create();
    const olderRecord = await redis.get(sessionKey(prefix, older.session.tokenHash));
    await store.delete(older.session, 'logout', context);
    await store.delete(newer.session, 'logout', context);
    endedListed = 1;
    await redis.set(sessionKey(prefix, older.session.tokenHash), olderRecord!, 'PX', HOUR);

    lookedUpSessions = [];
    expect(await auth(older.cookieValue)).toBeUndefined();
    expect(await auth(live.cookieValue)).toBeDefined();
    expect(await auth(live.cookieValue)).toBeDefined();
    // Each session not listed was asked about once by its id; the second use of the live one was answered from memory.
    expect(lookedUpSessions).toEqual([older.session.publicId, live.session.publicId]);
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(live.cookieValue)).toBeDefined();
    expect(lookedUpSessions).toHaveLength(3);

    // With every ending listed, one lookup answers for every session of the account.
    endedListed = 100;
    now += ACCOUNT_STATE_MAX_AGE_MS;
    expect(await auth(live.cookieValue)).toBeDefined();
    const third = await create();
    expect(await auth(third.cookieValue)).toBeDefined();
    expect(lookedUpSessions).toHaveLength(4);
  });

  it('stores sessions in the layout the jobs worker and identity read: their epoch, and which of them end below one', async () => {
    const older = await create('user-1', 2);
    const newer = await create('user-1', 3);
    const raw = (tokenHash: string) => redis.get(sessionKey(prefix, tokenHash));
    expect(sessionEpochOf((await raw(older.session.tokenHash))!)).toBe(2);
    expect(sessionEpochOf((await raw(newer.session.tokenHash))!)).toBe(3);

    // What a credential change at epoch 3 makes the jobs worker do, behind the gateway's back.
    expect(await endSessionsBefore(redis, prefix, 'user-1', 3)).toBe(1);
    expect(await auth(older.cookieValue)).toBeUndefined();
    expect(await auth(newer.cookieValue)).toBeDefined();
    expect(await redis.hkeys(userSessionsKey(prefix, 'user-1'))).toEqual([newer.session.publicId]);
  });

  it('records a re-authentication, a pending first factor, and keeps every method the session proved', async () => {
    const { cookieValue, session } = await create();
    expect(session.proofMethods).toEqual(['pwd']);
    await store.markFirstFactor(session, 'fed');
    const pending = (await auth(cookieValue))!;
    expect(pending.pendingFirstFactor).toEqual({ method: 'fed', at: now });
    expect(pending.authenticatedAt).toBe(session.authenticatedAt);

    now += 1_000;
    await store.markAuthenticated(pending, ['fed', 'otp', 'mfa']);
    const stepped = (await auth(cookieValue))!;
    expect(stepped).toMatchObject({ authenticatedAt: now, proofMethods: ['fed', 'otp', 'mfa'], methods: ['pwd', 'fed', 'otp', 'mfa'] });
    expect(stepped.pendingFirstFactor).toBeUndefined();
  });
});
