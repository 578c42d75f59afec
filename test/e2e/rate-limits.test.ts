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
    RATE_LIMIT_ACCOUNT_FAILURES: '6',
    RATE_LIMIT_IP_MAX: '8',
    RATE_LIMIT_MAIL_MAX: '2',
    RATE_LIMIT_SEARCH_MAX: '5',
    RATE_LIMIT_POST_WRITES: '3',
  });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

describe('rate limits', () => {
  it('answers parallel wrong guesses from one client with at most the limit of 401s, the rest 429 with Retry-After', async () => {
    const account = await signedInAccount(stack, 'guessed', nextAddress());
    const guesser = clientFrom();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => guesser.post('/v0/auth/login', { email: account.email, password: 'not the password' })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body).toMatchObject({ code: 'rate_limit:exceeded' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The guesser is refused even the right password; the owner, elsewhere, is not locked out.
    expect((await guesser.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(429);
    expect((await clientFrom().post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
  });

  it('refuses an unknown account exactly as a known one', async () => {
    const guesser = clientFrom();
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await guesser.post('/v0/auth/login', { email: 'nobody.here@example.com', password: 'not the password' }));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
    expect(answers[0]!.body).toMatchObject({ code: 'auth:invalid_credentials' });
  });

  it('binds guessers spread over many addresses by the per-account ceiling, until a password reset clears it', async () => {
    const account = await signedInAccount(stack, 'ceiling', nextAddress());
    for (const guesser of [clientFrom(), clientFrom()]) {
      for (let i = 0; i < 3; i += 1) expect((await guesser.post('/v0/auth/login', { email: account.email, password: 'nope nope' })).status).toBe(401);
    }
    const owner = clientFrom();
    expect((await owner.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(429);

    expect((await clientFrom().post('/v0/auth/forgot-password', { email: account.email })).status).toBe(202);
    const token = await mailedToken(stack, account.email, 'reset-password');
    expect((await clientFrom().post('/v0/auth/reset-password', { token, new_password: 'a brand new passphrase' })).status).toBe(204);
    expect((await owner.post('/v0/auth/login', { email: account.email, password: 'a brand new passphrase' })).status).toBe(200);
  });

  it('counts IPv6 clients by their /64', async () => {
    const account = await signedInAccount(stack, 'ipv6', nextAddress());
    const from = (address: string) => new ApiClient(stack.gatewayUrl, { 'x-forwarded-for': address });
    for (let i = 1; i <= 3; i += 1) {
      expect((await from(`2001:db8:77:1::${i}`).post('/v0/auth/login', { email: account.email, password: 'nope nope' })).status).toBe(401);
    }
    expect((await from('2001:db8:77:1:ffff::9').post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(429);
    expect((await from('2001:db8:77:2::1').post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
  });

  it('forgets a client’s failed logins once it signs in', async () => {
    const account = await signedInAccount(stack, 'forgetful', nextAddress());
    const client = clientFrom();
    const attempt = (password: string) => client.post('/v0/auth/login', { email: account.email, password });
    for (let i = 0; i < 2; i += 1) expect((await attempt('not the password')).status).toBe(401);
    expect((await attempt(PASSWORD)).status).toBe(200);
    // Two more failures would have reached the limit had the first two still counted.
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

  it('limits search per client', async () => {
    const searcher = clientFrom();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await searcher.get('/v0/search/posts?q=anything')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await clientFrom().get('/v0/search/posts?q=anything')).status).toBe(200);
  });

  it('limits post creates and updates per user', async () => {
    const author = await signedInAccount(stack, 'writer', nextAddress());
    const created = await author.client.post<{ id: string }>('/v0/posts', { title: 'one', content: 'text' });
    expect(created.status).toBe(201);
    expect((await author.client.request('PATCH', `/v0/posts/${created.body.id}`, { json: { title: 'two' } })).status).toBe(200);
    expect((await author.client.post('/v0/posts', { title: 'three', content: 'text' })).status).toBe(201);
    const refused = await author.client.post('/v0/posts', { title: 'four', content: 'text' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await signedInAccount(stack, 'otherwriter', nextAddress());
    expect((await other.client.post('/v0/posts', { title: 'mine', content: 'text' })).status).toBe(201);
  });

  it('counts wrong current passwords like wrong logins, so a stolen session is no password oracle', async () => {
    const account = await signedInAccount(stack, 'oracle', nextAddress());
    for (let i = 0; i < 3; i += 1) {
      const wrong = await account.client.post('/v0/auth/change-password', { current_password: 'guess guess', new_password: 'another long one' });
      expect(wrong.body).toMatchObject({ code: 'auth:wrong_password' });
    }
    const refused = await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: 'elsewhere@example.com' });
    expect(refused.status).toBe(429);
    expect((await account.client.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(429);
  });

  it('limits email changes per account and per new address', async () => {
    const account = await signedInAccount(stack, 'mover', nextAddress());
    const change = (to: string) => account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: to });
    expect((await change('first.move@example.com')).status).toBe(202);
    expect((await change('second.move@example.com')).status).toBe(202);
    expect((await change('third.move@example.com')).status).toBe(429);
    const other = await signedInAccount(stack, 'target', nextAddress());
    const target = 'popular.target@example.com';
    expect((await other.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: target })).status).toBe(202);
    const third = await signedInAccount(stack, 'target2', nextAddress());
    expect((await third.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: target })).status).toBe(202);
    const fourth = await signedInAccount(stack, 'target3', nextAddress());
    expect((await fourth.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: target })).status).toBe(429);
  });

  it('counts OAuth authorize calls in the per-client credential bucket', async () => {
    const caller = clientFrom();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await caller.get('/v0/auth/oauth/google/authorize')).status);
    expect(statuses.slice(0, 8).every((status) => status !== 429)).toBe(true);
    expect(statuses[8]).toBe(429);
  });

  it('counts passkey sign-in attempts in the per-client credential bucket', async () => {
    const caller = clientFrom();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await caller.post('/v0/auth/passkeys/authentication/options')).status);
      statuses.push((await caller.post('/v0/auth/passkeys/authentication/verify', { response: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30' } } })).status);
    }
    expect(statuses).toEqual([200, 400, 200, 400, 200, 400, 200, 400]);
    const limited = await caller.post('/v0/auth/passkeys/authentication/options');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
