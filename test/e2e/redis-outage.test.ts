import path from 'node:path';
import { freePort, startHungRedis, startProcess, testSigningKeys, type HungRedis, type ManagedProcess } from '@latchkey/test-kit';

const repoRoot = path.resolve(__dirname, '../..');
/** Well formed, so that the gateway has to ask Redis about it. */
const COOKIE = `session_id=${'a'.repeat(43)}`;

/** The built gateway alone, as an operator runs it, with its services unreachable. */
async function startGateway(redisUrl: string): Promise<{ gateway: ManagedProcess; url: string }> {
  const nowhere = `127.0.0.1:${await freePort()}`;
  const gateway = startProcess('gateway', process.execPath, ['gateway/dist/main.js'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      PUBLIC_APP_URL: 'http://app.example.test',
      REDIS_URL: redisUrl,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      GRPC_PORT: '0',
      AUTH_JWT_SIGNING_KEYS: testSigningKeys(),
      IDENTITY_GRPC_ADDRESS: nowhere,
      POSTS_GRPC_ADDRESS: nowhere,
      TOTP_GRPC_ADDRESS: nowhere,
      OAUTH_GRPC_ADDRESS: nowhere,
    },
  });
  const ready = await gateway.waitForOutput(/\{[^\n]*"msg":"ready"[^\n]*\}/);
  return { gateway, url: String((JSON.parse(ready) as { url: string }).url) };
}

describe('the gateway without a working Redis', () => {
  let hung: HungRedis | undefined;
  let gateway: ManagedProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    await hung?.close();
    gateway = undefined;
    hung = undefined;
  });

  it.each(['refusing', 'silent', 'after-handshake'] as const)(
    'answers a session 503 problem+json while Redis is %s, stays live and ready, and stops cleanly',
    async (mode) => {
      if (mode !== 'refusing') hung = await startHungRedis(mode);
      const started = await startGateway(hung?.url ?? `redis://127.0.0.1:${await freePort()}`);
      gateway = started.gateway;

      const me = await fetch(`${started.url}/v0/users/me`, { headers: { cookie: COOKIE } });
      expect(me.status).toBe(503);
      expect(me.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await me.json()).toMatchObject({ status: 503, code: 'service:unavailable' });

      // Readiness does not weigh Redis (docs/operations.md, "Probes"): routes without a session still work.
      expect((await fetch(`${started.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${started.url}/healthz`)).status).toBe(200);

      expect(await gateway.stop()).toBe(0);
      expect(gateway.output()).not.toContain('"level":"error"');
    },
  );
});
