import { testSigningKeys } from '@latchkey/test-kit';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { loadGatewayConfig } from '../../gateway/src/config';

/** docs/operations.md, "Session cookie name": production can use the `__Host-` prefix. */
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('cookiename', { SESSION_COOKIE_NAME: '__Host-session_id', COOKIE_SECURE: 'true' });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('SESSION_COOKIE_NAME', () => {
  it('names the session cookie, with the attributes a __Host- cookie needs, and reads only that name', async () => {
    const account = await signedInAccount(stack, 'hostcookie');
    const login = await fetch(`${stack.gatewayUrl}/v0/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const line = login.headers.getSetCookie().find((candidate) => candidate.startsWith('__Host-session_id='));
    expect(line).toBeDefined();
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; Secure/);
    expect(line).not.toMatch(/; Domain=/i);
    const value = /^__Host-session_id=([^;]+)/.exec(line!)![1];

    const me = (cookie: string) => fetch(`${stack.gatewayUrl}/v0/users/me`, { headers: { cookie } });
    expect((await me(`__Host-session_id=${value}`)).status).toBe(200);
    expect((await me(`session_id=${value}`)).status).toBe(401);
    const document = (await (await fetch(`${stack.gatewayUrl}/v0/openapi.json`)).json()) as {
      components: { securitySchemes: { session: { name: string } } };
    };
    expect(document.components.securitySchemes.session.name).toBe('__Host-session_id');
  });

  it('refuses to start with a prefixed name the browser would drop, or a name that is no cookie name', () => {
    const base = { PUBLIC_APP_URL: 'http://app.example.test', REDIS_URL: 'redis://127.0.0.1:6379', AUTH_JWT_SIGNING_KEYS: testSigningKeys() };
    expect(() => loadGatewayConfig({ ...base, SESSION_COOKIE_NAME: '__Host-session_id', COOKIE_SECURE: 'false' })).toThrow(/SESSION_COOKIE_NAME/);
    expect(() => loadGatewayConfig({ ...base, SESSION_COOKIE_NAME: 'session id; x=1' })).toThrow(/SESSION_COOKIE_NAME/);
    expect(loadGatewayConfig(base).SESSION_COOKIE_NAME).toBe('session_id');
  });
});
