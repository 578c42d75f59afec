import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startProcess, waitFor, type ManagedProcess } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * Redis as docs/operations.md ("Redis memory") asks it to be run:
 * `maxmemory` with `noeviction`. Filled up, it must refuse new state, which
 * the gateway answers 503, and keep every session it holds.
 */
let redisServer: ManagedProcess;
let filler: Redis;
let stack: E2eStack;

beforeAll(async () => {
  const port = await freePort();
  redisServer = startProcess(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--maxmemory', '8mb', '--maxmemory-policy', 'noeviction', '--save', '', '--appendonly', 'no'],
    { cwd: path.resolve(__dirname), env: { PATH: process.env.PATH } },
  );
  await redisServer.waitForOutput(/Ready to accept connections/);
  filler = new Redis(`redis://127.0.0.1:${port}`);
  stack = await startE2eStack('redisfull', { REDIS_URL: `redis://127.0.0.1:${port}/0` });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
  filler?.disconnect();
  await redisServer?.stop();
});

/**
 * Writes filler until Redis refuses even small writes with OOM: what a busy
 * installation reaches when it is sized too small. Large values first, then
 * smaller ones into what is left.
 */
async function fillRedis(): Promise<void> {
  let key = 0;
  for (const size of [256 * 1024, 8 * 1024, 256, 16]) {
    const value = 'x'.repeat(size);
    for (;;) {
      key += 1;
      try {
        await filler.set(`filler:${key}`, value);
      } catch (error) {
        expect(String(error)).toMatch(/^ReplyError: OOM /);
        break;
      }
    }
  }
}

describe('a full Redis under noeviction', () => {
  it('answers new sign-ins 503, keeps the sessions it holds, and recovers when there is room', async () => {
    const account = await signedInAccount(stack, 'full');
    await fillRedis();

    const login = await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(login.status).toBe(503);
    expect(login.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(login.body).toMatchObject({ code: 'service:unavailable' });
    // Nothing was evicted to make room: the existing session still signs its owner in.
    expect((await account.client.get('/v0/auth/sessions')).status).toBe(200);

    const fillers = await filler.keys('filler:*');
    await filler.del(...fillers);
    await waitFor(async () => ((await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: account.email, password: PASSWORD })).status === 200 ? true : undefined), {
      description: 'a sign-in once Redis has room again',
    });
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });
});
