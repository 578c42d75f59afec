import path from 'node:path';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@latchkey/test-kit';
import { calleesOf, unitNamed } from '@latchkey/units';
import { ApiClient } from '../support/api-client';
import { totpCode } from '../support/authenticator';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/operations.md, "What each route needs": a backing service or a unit
 * that is down fails only the routes that need it, with 503 problem+json,
 * and never the gateway's readiness, which would take every route away.
 * The stack runs on a Redis of its own, so that the test can stop it.
 */
let redisPort: number;
let redis: ManagedProcess | undefined;
let stack: E2eStack;
let account: Awaited<ReturnType<typeof signedInAccount>>;
let postId: string;

function startRedis(): Promise<string> {
  redis = startProcess('redis-server', 'redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    cwd: path.resolve(__dirname),
    env: { PATH: process.env.PATH },
  });
  return redis.waitForOutput(/Ready to accept connections/);
}

beforeAll(async () => {
  redisPort = await freePort();
  await startRedis();
  stack = await startE2eStack('isolation', { REDIS_URL: `redis://127.0.0.1:${redisPort}/0` });
  account = await signedInAccount(stack, 'isolation');
  const created = await account.client.post<{ id: string }>('/v0/posts', { title: 'Still here', content: 'when Redis is not' });
  expect(created.status).toBe(201);
  postId = created.body.id;
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
  await redis?.stop();
});

const anonymous = () => new ApiClient(stack.gatewayUrl);
const operations = (unit: string) => new ApiClient(stack.operationsUrl(unit));

/** Waits until the gateway sees `dependency` as `state`. */
function gatewaySees(dependency: string, state: 'up' | 'down') {
  return waitFor(
    async () => {
      const answer = await operations('gateway').get<Record<string, string>>('/dependencies');
      return answer.body[dependency] === state ? answer : undefined;
    },
    { description: `the gateway to see ${dependency} ${state}` },
  );
}

function expectUnavailable(answer: { status: number; headers: Headers; body: unknown }): void {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status: 503, code: 'service:unavailable' });
}

async function expectEveryUnitReady(): Promise<void> {
  for (const unit of ['gateway', 'identity', 'oauth', 'totp', 'posts', 'passkeys']) {
    expect({ unit, status: (await operations(unit).get('/readyz')).status }).toEqual({ unit, status: 200 });
    expect({ unit, status: (await operations(unit).get('/healthz')).status }).toEqual({ unit, status: 200 });
  }
  expect((await anonymous().get('/readyz')).status).toBe(200);
}

describe('with Redis down', () => {
  beforeAll(async () => {
    await redis!.stop();
    await gatewaySees('redis', 'down');
  });

  afterAll(async () => {
    await startRedis();
    await gatewaySees('redis', 'up');
  });

  it('answers signed-in routes and sign-ins 503, and keeps serving public post reads', async () => {
    expectUnavailable(await account.client.get('/v0/users/me'));
    expectUnavailable(await account.client.get('/v0/auth/sessions'));
    expectUnavailable(await account.client.post('/v0/posts', { title: 'Not now', content: 'no session check' }));
    expectUnavailable(await anonymous().post('/v0/auth/login', { email: account.email, password: PASSWORD }));
    // Search is a public read, but its per-client limit lives in Redis, and it does not run unlimited.
    expectUnavailable(await anonymous().get('/v0/search/posts?q=here'));

    const list = await anonymous().get<{ items: { id: string }[] }>('/v0/posts');
    expect(list.status).toBe(200);
    expect(list.body.items.map((item) => item.id)).toContain(postId);
    const one = await anonymous().get<{ content: string }>(`/v0/posts/${postId}`);
    expect(one.status).toBe(200);
    expect(one.body.content).toBe('when Redis is not');
    expect((await anonymous().get('/.well-known/jwks.json')).status).toBe(200);
  });

  it('keeps every unit live and ready, and says what is down', async () => {
    await expectEveryUnitReady();
    const dependencies = await operations('gateway').get('/dependencies');
    expect(dependencies.status).toBe(503);
    // Redis, and every unit the gateway calls (packages/units): identity, oauth, totp, posts, passkeys.
    expect(dependencies.body).toEqual({ redis: 'down', ...Object.fromEntries(calleesOf(unitNamed('gateway')).map((unit) => [unit, 'up'])) });
    expect((await operations('gateway').get('/metrics')).text).toMatch(/dependency_up\{[^}]*dependency="redis"[^}]*\} 0/);
  });
});

describe('with a unit down', () => {
  it('answers the routes that need posts 503, serves the others, and stays ready', async () => {
    // Redis came back empty: sign in again.
    const again = await signedInAccount(stack, 'afterredis');
    const posts = stack.processes.get('posts')!;
    process.kill(posts.pid!, 'SIGKILL');
    await gatewaySees('posts', 'down');

    expectUnavailable(await anonymous().get('/v0/posts?limit=5&author_id=00000000-0000-4000-8000-000000000000'));
    expectUnavailable(await anonymous().get(`/v0/posts/${postId}`));
    expectUnavailable(await again.client.post('/v0/posts', { title: 'Not now', content: 'posts is away' }));

    expect((await again.client.get('/v0/users/me')).status).toBe(200);
    expect((await again.client.get('/v0/auth/totp/status')).status).toBe(200);
    expect((await again.client.get('/v0/auth/passkeys')).status).toBe(200);
    const login = await anonymous().post('/v0/auth/login', { email: again.email, password: PASSWORD });
    expect(login.status).toBe(200);

    for (const unit of ['identity', 'oauth', 'totp', 'passkeys', 'gateway']) {
      expect({ unit, status: (await operations(unit).get('/readyz')).status }).toEqual({ unit, status: 200 });
    }
    expect((await anonymous().get('/readyz')).status).toBe(200);
  });

  it('signs in an account without TOTP while totp is down, and answers one with TOTP 503', async () => {
    const withTotp = await signedInAccount(stack, 'withtotp');
    const setup = (await withTotp.client.post<{ setup_token: string; secret: string }>('/v0/auth/totp/setup')).body;
    expect((await withTotp.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    const without = await signedInAccount(stack, 'nototp');
    process.kill(stack.processes.get('totp')!.pid!, 'SIGKILL');
    await gatewaySees('totp', 'down');

    // Identity knows that this account has no TOTP: the sign-in does not ask totp.
    const login = await anonymous().post('/v0/auth/login', { email: without.email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ email: without.email, totp_enabled: false, passkeys_count: 0 });
    // This one may have it: without totp's answer there is no sign-in.
    expectUnavailable(await anonymous().post('/v0/auth/login', { email: withTotp.email, password: PASSWORD }));
  });
});
