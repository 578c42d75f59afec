import { createRedisClient, type RedisClient } from '@latchkey/db';
import { endSessionsBefore } from '@latchkey/session-keys';
import { startRequestContext } from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';
import { uniqueName } from '@latchkey/test-kit';
import { AccountStates } from '../../gateway/src/sessions/account-states';
import { SessionStore } from '../../gateway/src/sessions/session-store';
import { RateLimiter } from '../../gateway/src/limits/rate-limiter';
import { LoginFailures } from '../../gateway/src/limits/login-failures';
import { LoginChallenges } from '../../services/totp/src/login-challenges';
import { sharedTopology } from '../support/topology';

/**
 * What the units do to Redis, run on the topology project's Redis Cluster
 * (3 masters, 3 replicas), where a transaction, a script or a multi-key
 * command over keys of several hash slots fails with CROSSSLOT. The
 * end-to-end suites of the project run the whole stack there too.
 */
const HOUR = 3_600_000;
const policy = { slidingTtlMs: 168 * HOUR, maxLifetimeMs: 720 * HOUR, refreshThresholdPercent: 50, maxPerUser: 3 };
const logger = { warn: () => undefined, info: () => undefined };
const context = startRequestContext({ requestId: 'slots-test', logger: createLogger({ service: 'test', level: 'silent' }), deadline: Date.now() + HOUR }).context;
/** Identity's answer for u1: epoch 1 until the test raises it, as a password change would. */
let epoch = 1;
const profile = {
  id: '00000000-0000-4000-8000-000000000001',
  handle: 'ada',
  email: 'ada@example.com',
  email_verified: true,
  email_verified_at: null,
  has_password: true,
  totp_enabled: false,
  passkeys_count: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  active_org: null,
};

let redis: RedisClient;
let prefix: string;

beforeAll(async () => {
  const topology = sharedTopology();
  if (!topology?.redis) throw new Error('runs in the topology project, on its Redis Cluster (jest --selectProjects topology)');
  redis = createRedisClient(
    { REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: topology.redis.REDIS_CLUSTER_NODES!.split(','), REDIS_PASSWORD: topology.redis.REDIS_PASSWORD },
    { connectionName: 'slots-test', logger },
  );
});

beforeEach(() => {
  prefix = `${uniqueName('slots')}:`;
});

afterAll(() => {
  redis.disconnect();
});

describe('on a Redis Cluster', () => {
  it('refuses a transaction over two slots, so that the checks below can fail', async () => {
    await expect(redis.multi().set(`${prefix}a`, '1').set(`${prefix}b`, '2').exec()).rejects.toThrow(/CROSSSLOT|slot/i);
  });

  it('keeps sessions: create past the per-user limit, authenticate, list, forget profiles, end some and all', async () => {
    epoch = 1;
    const states = new AccountStates(async () => ({ sessionEpoch: epoch, disabled: false }), { maxAgeMs: 0, maxEntries: 10 });
    const store = new SessionStore(redis, prefix, policy, states, async () => undefined);
    const now = () => context;
    const create = () =>
      store.create({ userId: 'u1', handle: 'ada', sessionEpoch: epoch, methods: ['pwd'], userAgent: 'jest', ip: '127.0.0.1', profile }, context);
    const created = [];
    for (let i = 0; i < 4; i += 1) created.push(await create());
    expect(await store.list('u1', now)).toHaveLength(3);
    const last = created[3]!;
    expect((await store.authenticate(last.cookieValue, now))?.userId).toBe('u1');
    await store.forgetProfiles('u1');
    expect((await store.inspect(last.cookieValue, now))?.profile).toBeUndefined();
    expect(await store.deleteByPublicId('u1', last.session.publicId, 'session_revoked', context)).toBe(true);
    expect(await store.authenticate(last.cookieValue, now)).toBeUndefined();
    await create();
    expect(await endSessionsBefore(redis, prefix, 'u1', 2)).toBe(3);
    expect(await store.list('u1', now)).toEqual([]);
    await create();
    // A session that outlived a credential change in Redis is refused and ended on use.
    const stale = await create();
    epoch = 2;
    expect(await store.authenticate(stale.cookieValue, now)).toBeUndefined();
    await create();
    expect(await store.deleteAllForUser('u1', { reason: 'logout' }, context)).toBe(2);
  });

  it('runs the rate-limit and login-failure scripts', async () => {
    const limiter = new RateLimiter(redis, prefix);
    expect((await limiter.hit('ip', '127.0.0.1', 1, 60)).allowed).toBe(true);
    expect((await limiter.hit('ip', '127.0.0.1', 1, 60)).allowed).toBe(false);
    const failures = new LoginFailures(redis, prefix, { perClient: 2, perAccount: 5, windowSeconds: 60 });
    expect((await failures.reserve('ada@example.com', 'c1')).allowed).toBe(true);
    await failures.giveBack('ada@example.com', 'c1');
    await failures.succeeded('ada@example.com', 'c1');
    await failures.clear('ada@example.com');
  });

  it('issues, spends and removes TOTP sign-in challenges', async () => {
    const challenges = new LoginChallenges(redis, prefix, 300);
    const { token } = await challenges.issue('u1', Date.now(), { firstFactor: 'pwd', sessionEpoch: 0 });
    expect(await challenges.reserveAttempt(token, Date.now())).toMatchObject({ outcome: 'reserved', userId: 'u1' });
    await challenges.releaseAttempt(token);
    await challenges.issue('u1', Date.now(), { firstFactor: 'pwd', sessionEpoch: 0 });
    await challenges.deleteFor('u1');
    expect(await challenges.reserveAttempt(token, Date.now())).toEqual({ outcome: 'unknown' });
  });
});
