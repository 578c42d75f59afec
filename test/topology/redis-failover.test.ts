import { Redis } from 'ioredis';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import { sessionKey } from '@latchkey/session-keys';
import { startOwnRedisServer, testDatabaseAdminUrl, waitFor, type OwnRedisServer } from '@latchkey/test-kit';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { ApiClient } from '../support/api-client';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { providerEnvironment, startGoogleFixture, type GoogleFixture } from '../support/oauth-providers';
import { startTopology, type RunningTopology } from '../support/topology';

/**
 * The gateway and the services through the death of the Redis that holds
 * a user's session (docs/operations.md, "Production topology"): after the
 * replica is promoted the session works again, without a restart; and a
 * Redis rolled back to a snapshot from before a password change does not
 * bring the ended session back.
 */
jest.setTimeout(240_000);

/** GET /v0/users/me until it answers `status`; how long that took. */
async function untilMe(client: ApiClient, status: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitFor(async () => ((await client.get('/v0/users/me')).status === status ? true : undefined), {
    timeoutMs,
    intervalMs: 100,
    description: `GET /v0/users/me to answer ${status}`,
  });
  return Date.now() - started;
}

describe('a Sentinel group losing its master', () => {
  let topology: RunningTopology;
  let google: GoogleFixture;
  let stack: E2eStack;

  beforeAll(async () => {
    [topology, google] = await Promise.all([startTopology({ redis: 'sentinel' }), startGoogleFixture()]);
    stack = await startE2eStack('sentinel', providerEnvironment('http://app.example.test', { google }), { topology: topology.addresses });
  });

  afterAll(async () => {
    await stack?.destroy();
    await google?.stop();
    await topology?.stop();
  });

  it('keeps the session: the units follow the promoted replica', async () => {
    const sentinel = topology.sentinel!;
    const account = await signedInAccount(stack, 'sentinel');
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    // The session reached the replica before the master dies: what a failover cannot lose.
    await sentinel.waitForReplicas();
    const { oldPort, newPort } = await sentinel.failOver();
    expect(newPort).not.toBe(oldPort);
    await untilMe(account.client, 200, 60_000);
    // Writes too, through every unit the sign-in passes: each follows the promoted replica on its own.
    const again = new ApiClient(stack.gatewayUrl);
    await waitFor(
      async () => ((await again.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status === 200 ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 250, description: 'a sign-in after the failover' },
    );
    expect((await again.get('/v0/users/me')).status).toBe(200);
    // And the units whose own state is in Redis: a TOTP setup (totp), a passkey challenge (passkeys), an OAuth state (oauth).
    for (const [description, request] of [
      ['a TOTP setup after the failover', () => again.post('/v0/auth/totp/setup')],
      ['a passkey challenge after the failover', () => again.post('/v0/auth/passkeys/registration/options')],
      ['an OAuth authorization after the failover', () => again.get('/v0/auth/oauth/google/authorize?purpose=link')],
    ] as const) {
      await waitFor(async () => ((await request()).status === 200 ? true : undefined), { timeoutMs: 30_000, intervalMs: 250, description });
    }
  });
});

describe('a Redis Cluster losing the master of a session', () => {
  let topology: RunningTopology;
  let stack: E2eStack;

  beforeAll(async () => {
    topology = await startTopology({ redis: 'cluster' });
    stack = await startE2eStack('cluster_failover', {}, { topology: topology.addresses });
  });

  afterAll(async () => {
    await stack?.destroy();
    await topology?.stop();
  });

  it('keeps the session: the units follow the promoted replica', async () => {
    const cluster = topology.redisCluster!;
    const account = await signedInAccount(stack, 'cluster');
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
    const key = sessionKey(stack.env.REDIS_KEY_PREFIX ?? '', hashOpaqueToken(account.client.sessionCookie!));
    const master = await cluster.masterOf(key);
    const direct = new Redis({ port: master.port, host: '127.0.0.1', password: cluster.password, maxRetriesPerRequest: 0 });
    try {
      expect(await direct.exists(key)).toBe(1);
      // The session reached the master's replica before the master dies.
      expect(await direct.wait(1, 5_000)).toBeGreaterThanOrEqual(1);
    } finally {
      direct.disconnect();
    }
    await master.kill();
    await untilMe(account.client, 200, 60_000);
    expect((await cluster.masterOf(key)).port).not.toBe(master.port);
  });
});

describe('a Redis restored from a snapshot taken before a password change', () => {
  let redis: OwnRedisServer;
  let stack: E2eStack;

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    // The machine's PostgreSQL and NATS, not the project's shared engines: only Redis is rolled back.
    stack = await startE2eStack('redis_rollback', { REDIS_URL: redis.url }, { topology: { databaseAdminUrl: testDatabaseAdminUrl() } });
  });

  afterAll(async () => {
    await stack?.destroy();
    await redis?.stop();
  });

  it('does not bring the ended session back: it is refused within 5 s', async () => {
    const account = await signedInAccount(stack, 'rollback');
    const other = new ApiClient(stack.gatewayUrl);
    expect((await other.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    expect((await other.get('/v0/users/me')).status).toBe(200);
    // Kept aside: the gateway clears the cookie when it refuses it, and the browser of a stolen cookie would not.
    const cookie = other.sessionCookie!;
    const snapshot = await redis.snapshot();

    const changed = await account.client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: 'a brand new passphrase' });
    expect(changed.status).toBe(204);
    await untilMe(other, 401, 30_000);

    // The rollback: the session record the change removed is back in Redis.
    await redis.kill();
    await redis.start(snapshot);
    const restored = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      expect(await restored.exists(sessionKey(stack.env.REDIS_KEY_PREFIX ?? '', hashOpaqueToken(cookie)))).toBe(1);
    } finally {
      restored.disconnect();
    }
    other.sessionCookie = cookie;
    const refusedAfter = await untilMe(other, 401, 30_000);
    expect(refusedAfter).toBeLessThanOrEqual(5_000);
    // And it stays refused.
    other.sessionCookie = cookie;
    expect((await other.get('/v0/users/me')).status).toBe(401);
  });
});
