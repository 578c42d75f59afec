import { ApiClient } from '../support/api-client';
import { countMails, mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

let stack: E2eStack;
let ipCounter = 0;

/** Each test speaks from its own client address, which the gateway trusts 127.0.0.1 to forward. */
function nextAddress(): Record<string, string> {
  ipCounter += 1;
  return { 'x-forwarded-for': `203.0.113.${ipCounter}` };
}

function clientFrom(): ApiClient {
  return new ApiClient(stack.gatewayUrl, nextAddress());
}

beforeAll(async () => {
  stack = await startE2eStack('ratelimits', {
    TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
    RATE_LIMIT_LOGIN_FAILURES: '3',
    RATE_LIMIT_IP_MAX: '8',
    RATE_LIMIT_MAIL_MAX: '2',
  });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('rate limits', () => {
  it('locks an account after too many failed logins, whatever the address, with Retry-After', async () => {
    const account = await signedInAccount(stack, 'locked', nextAddress());
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const wrong = await clientFrom().post('/v0/auth/login', { email: account.email, password: 'not the password' });
      expect(wrong.body).toMatchObject({ code: 'auth:invalid_credentials' });
    }
    const locked = await clientFrom().post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ code: 'rate_limit:exceeded' });
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);

    const other = await signedInAccount(stack, 'unlocked', nextAddress());
    expect((await clientFrom().post('/v0/auth/login', { email: other.email, password: PASSWORD })).status).toBe(200);
  });

  it('forgets an account’s failed logins once it signs in', async () => {
    const account = await signedInAccount(stack, 'forgetful', nextAddress());
    const attempt = (password: string) => clientFrom().post('/v0/auth/login', { email: account.email, password });
    for (let i = 0; i < 2; i += 1) expect((await attempt('not the password')).status).toBe(401);
    expect((await attempt(PASSWORD)).status).toBe(200);
    // Two more failures would have locked the account had the first two still counted.
    for (let i = 0; i < 2; i += 1) expect((await attempt('not the password')).status).toBe(401);
    expect((await attempt(PASSWORD)).status).toBe(200);
  });

  it('limits credential requests per client IP, taken from X-Forwarded-For of a trusted proxy', async () => {
    const noisy = clientFrom();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      statuses.push((await noisy.post('/v0/auth/forgot-password', { email: `someone${i}@example.com` })).status);
    }
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(202));
    expect(statuses[8]).toBe(429);
    const blocked = await noisy.post('/v0/auth/login', { email: 'x@example.com', password: 'whatever' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await clientFrom().post('/v0/auth/forgot-password', { email: 'calm@example.com' })).status).toBe(202);
  });

  it('sends at most the allowed mails per address, still answering 202', async () => {
    const account = await signedInAccount(stack, 'mails', nextAddress());
    const anonymous = clientFrom;
    for (let i = 0; i < 3; i += 1) {
      expect((await anonymous().post('/v0/auth/forgot-password', { email: account.email })).status).toBe(202);
    }
    await mailedToken(stack, account.email, 'reset-password', 1);
    // A later mail through the same pipeline arrives after any third reset mail would have.
    const control = await signedInAccount(stack, 'control', nextAddress());
    await anonymous().post('/v0/auth/forgot-password', { email: control.email });
    await mailedToken(stack, control.email, 'reset-password');
    expect(countMails(stack, account.email, 'reset-password')).toBe(2);
  });
});
