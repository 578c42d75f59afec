import { Redis } from 'ioredis';
import { sessionsV1 } from '@latchkey/contracts';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import { sessionKey } from '@latchkey/session-keys';
import { createTestServiceClient, testRedisUrl, waitFor, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { withSessionStore } from '../support/session-records';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/**
 * docs/architecture.md, "Sessions": a session ended on its own (a logout,
 * one ended from the list or by sessions.v1, the others after a new second
 * factor) stays refused when Redis brings it back, a failover to a replica
 * that missed the deletion or a restored snapshot, within 5 s. The
 * snapshot here is the real Redis's own: the session's keys DUMPed before
 * the ending and RESTOREd after it.
 */
let stack: E2eStack;
let sessions: TestServiceClient<typeof sessionsV1.SessionsServiceService>;
let redis: Redis;

beforeAll(async () => {
  stack = await startE2eStack('endings');
  sessions = createTestServiceClient(sessionsV1.SessionsServiceService, `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`);
  redis = new Redis(testRedisUrl());
}, 60_000);

afterAll(async () => {
  sessions?.close();
  redis?.disconnect();
  await stack?.destroy();
});

/** What each way in answers for a cookie: the API, a service token, and another service's introspection. */
async function uses(cookie: string): Promise<{ me: number; token: number; introspected: boolean }> {
  // A fresh client each time: the gateway clears a refused cookie, and a thief's copy would not.
  const client = new ApiClient(stack.gatewayUrl);
  client.sessionCookie = cookie;
  const [me, token, introspected] = await Promise.all([
    client.get('/v0/users/me'),
    client.post('/v0/auth/token'),
    sessions.introspectSession({ token: cookie }),
  ]);
  return { me: me.status, token: token.status, introspected: introspected.active };
}

const REFUSED = { me: 401, token: 401, introspected: false };

type Account = Awaited<ReturnType<typeof signedInAccount>>;

/**
 * Signs an account in twice, snapshots its sessions, ends the second one
 * with `end`, rolls Redis back, and answers how long the brought-back
 * session took to be refused on every way in.
 */
async function refusedAfterRollBack(label: string, end: (account: Account, other: ApiClient) => Promise<void>): Promise<{ account: Account; refusedInMs: number }> {
  const account = await signedInAccount(stack, label);
  const other = new ApiClient(stack.gatewayUrl);
  expect((await other.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
  const cookie = other.sessionCookie!;
  expect(await uses(cookie)).toEqual({ me: 200, token: 200, introspected: true });
  const snapshot = await withSessionStore(stack, (store) => store.snapshot(account.id));
  expect(snapshot.keys).toHaveLength(3);

  await end(account, other);
  expect(await uses(cookie)).toEqual(REFUSED);

  await withSessionStore(stack, (store) => store.rollBack(snapshot));
  const rolledBackAt = Date.now();
  expect(await redis.exists(sessionKey(stack.env.REDIS_KEY_PREFIX ?? '', hashOpaqueToken(cookie)))).toBe(1);
  await waitFor(async () => ((await uses(cookie)).me === 401 ? true : undefined), {
    description: 'the brought-back session to be refused',
    timeoutMs: 10_000,
    intervalMs: 100,
  });
  const refusedInMs = Date.now() - rolledBackAt;
  // Refused on every way in, and for good: every use asks again, and Redis holds it no more.
  expect(await uses(cookie)).toEqual(REFUSED);
  expect(await redis.exists(sessionKey(stack.env.REDIS_KEY_PREFIX ?? '', hashOpaqueToken(cookie)))).toBe(0);
  return { account, refusedInMs };
}

/** The public id of a client's session. */
async function sessionIdOf(client: ApiClient): Promise<string> {
  return (await sessions.introspectSession({ token: client.sessionCookie! })).session!.sessionId;
}

describe('a session ended on its own, brought back by Redis', () => {
  it('is refused within 5 s after a logout', async () => {
    const { account, refusedInMs } = await refusedAfterRollBack('logout', async (_account, other) => {
      expect((await other.post('/v0/auth/logout')).status).toBe(204);
    });
    expect(refusedInMs).toBeLessThan(5_000);
    // The session that stayed, brought back too, was never ended: it works.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });

  it('is refused within 5 s after its owner ended it from the list', async () => {
    const { account, refusedInMs } = await refusedAfterRollBack('listed', async (owner, other) => {
      expect((await owner.client.request('DELETE', `/v0/auth/sessions/${await sessionIdOf(other)}`)).status).toBe(204);
    });
    expect(refusedInMs).toBeLessThan(5_000);
    const listed = (await account.client.get('/v0/auth/sessions')).body.items as { current: boolean }[];
    expect(listed).toEqual([expect.objectContaining({ current: true })]);
  });

  it('is refused within 5 s after a platform service revoked it (sessions.v1)', async () => {
    const { refusedInMs } = await refusedAfterRollBack('platform', async (owner, other) => {
      await sessions.revokeSession({ userId: owner.id, sessionId: await sessionIdOf(other) });
    });
    expect(refusedInMs).toBeLessThan(5_000);
  });

  it('is refused within 5 s after turning TOTP on ended the other sessions, and the session that turned it on stays', async () => {
    const { account, refusedInMs } = await refusedAfterRollBack('second_factor', async (owner) => {
      const setup = totpSetupSchema.parse((await owner.client.post('/v0/auth/totp/setup')).body);
      expect((await owner.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret) })).status).toBe(200);
    });
    expect(refusedInMs).toBeLessThan(5_000);
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });
});
