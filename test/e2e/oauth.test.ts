import { randomBytes } from 'node:crypto';
import { ApiClient, sessionSetCookie } from '../support/api-client';
import { noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { followAuthorization, type GitHubAccount } from '../../services/oauth/test/provider-fixtures';
import { providerEnvironment, startGitHubFixture, startGoogleFixture, TEST_OAUTH_CLIENTS, type GitHubFixture, type GoogleFixture } from '../support/oauth-providers';
import { userSchema } from '../../gateway/src/account-view/user-schema';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

let stack: E2eStack;
let google: GoogleFixture;
let github: GitHubFixture;

beforeAll(async () => {
  [google, github] = await Promise.all([startGoogleFixture(), startGitHubFixture()]);
  stack = await startE2eStack('oauth', providerEnvironment('http://app.example.test', { google, github }));
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
  await Promise.all([google?.stop(), github?.stop()]);
});

const tag = () => randomBytes(4).toString('hex');
/** Every code, state and pending token the tests saw, to look for in the logs at the end. */
const secrets: string[] = [];

function googleLogin(email: string, verified = true, sub = `g-${tag()}`) {
  return { idToken: { sub, email, email_verified: verified, name: 'Grace Hopper', picture: 'https://pics.example/grace.png' } };
}

function githubLogin(email: string, verified = true, id = Math.floor(Math.random() * 1e9)): GitHubAccount {
  return {
    user: { id, login: `octo${id}`, name: 'Octo Cat', email: null, avatar_url: 'https://pics.example/octo.png' },
    emails: [{ email, primary: true, verified, visibility: 'private' }],
  };
}

/** Plays the client app: authorize, the browser at the provider, then the app posting code and state. */
async function providerLogin(client: ApiClient, provider: 'google' | 'github', purpose: 'login' | 'link' = 'login') {
  const authorize = await client.get(`/v0/auth/oauth/${provider}/authorize?purpose=${purpose}`);
  expect(authorize.status).toBe(200);
  const { code, state } = await followAuthorization(authorize.body.authorization_url as string);
  expect(state).toBe(authorize.body.state);
  secrets.push(code, state);
  return { code, state };
}

it('names the providers this installation configured', async () => {
  expect((await new ApiClient(stack.gatewayUrl).get('/v0/auth/oauth/providers')).body).toEqual({ items: [{ id: 'google' }, { id: 'github' }] });
});

describe('signing up and in with a provider', () => {
  it('creates a new account through a pending signup, then signs it in by its connection', async () => {
    const email = `grace.${tag()}@example.com`;
    const client = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(email));
    const pending = await client.post('/v0/auth/oauth/google/login', await providerLogin(client, 'google'));
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      status: 'pending_signup',
      pending_token: expect.any(String),
      email,
      name: 'Grace Hopper',
      avatar_url: 'https://pics.example/grace.png',
    });
    expect(sessionSetCookie(pending.headers)).toBeUndefined();
    secrets.push(pending.body.pending_token as string);

    const handle = `grace_${tag()}`;
    const created = await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle });
    expect(created.status).toBe(201);
    expect(userSchema.parse(created.body)).toMatchObject({ handle, email, email_verified: true, has_password: false });
    expect(client.sessionCookie).toBeDefined();
    expect((await client.get('/v0/users/me')).body).toMatchObject({ handle });
    expect((await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `x_${tag()}` })).body).toMatchObject({
      code: 'oauth:pending_signup_invalid',
    });

    const again = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(email, true, (await idOfGoogleConnection(client))));
    const signedIn = await again.post('/v0/auth/oauth/google/login', await providerLogin(again, 'google'));
    expect(signedIn.body).toMatchObject({ status: 'signed_in', user: { handle } });
    expect(again.sessionCookie).toBeDefined();
  });

  it('links a provider automatically to a verified account with the same verified email', async () => {
    const account = await signedInAccount(stack, 'autolink');
    const client = new ApiClient(stack.gatewayUrl);
    await github.nextLogin(githubLogin(account.email));
    const linked = await client.post('/v0/auth/oauth/github/login', await providerLogin(client, 'github'));
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ status: 'linked', user: { id: account.id, email: account.email } });
    expect(client.sessionCookie).toBeDefined();
    const connections = await client.get('/v0/auth/oauth/connections');
    expect(connections.body).toEqual({ items: [expect.objectContaining({ provider: 'github', email: account.email })] });
    // The sessions opened with the password end: it may have been chosen by someone who registered the address first.
    expect((await account.client.get('/v0/users/me')).status).toBe(401);
    const notice = await noticeMail(stack, account.email, /Signing in with GitHub was just linked/);
    expect(notice.text).toMatch(/reset your password/);
  });

  it('refuses an email the provider does not vouch for: no link, no pending signup', async () => {
    const account = await signedInAccount(stack, 'unverified');
    for (const email of [account.email, `nobody.${tag()}@example.com`]) {
      const client = new ApiClient(stack.gatewayUrl);
      await google.nextLogin(googleLogin(email, false));
      const refused = await client.post('/v0/auth/oauth/google/login', await providerLogin(client, 'google'));
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'oauth:email_not_verified' });
      expect(client.sessionCookie).toBeUndefined();
    }
    expect((await account.client.get('/v0/auth/oauth/connections')).body).toEqual({ items: [] });
  });

  it('asks for the second factor when the account has TOTP on', async () => {
    const email = `totp.${tag()}@example.com`;
    const client = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(email));
    const pending = await client.post('/v0/auth/oauth/google/login', await providerLogin(client, 'google'));
    await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `totp_${tag()}` });
    const setup = totpSetupSchema.parse((await client.post('/v0/auth/totp/setup')).body);
    expect((await client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);

    const later = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(email, true, (await idOfGoogleConnection(client))));
    const challenged = await later.post('/v0/auth/oauth/google/login', await providerLogin(later, 'google'));
    expect(challenged.body).toEqual({ totp_required: true, temp_token: expect.any(String) });
    expect(later.sessionCookie).toBeUndefined();
    const verified = await later.post('/v0/auth/totp/verify', { temp_token: challenged.body.temp_token, code: totpCode(setup.secret) });
    expect(verified.status).toBe(200);
    expect(later.sessionCookie).toBeDefined();
  });
});

describe('state and codes', () => {
  it('completes a sign-in only in the browser that started it', async () => {
    const starter = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(`binding.${tag()}@example.com`));
    const authorize = await starter.get('/v0/auth/oauth/google/authorize');
    const binding = authorize.headers.getSetCookie().find((line) => line.startsWith('oauth_binding='));
    expect(binding).toMatch(/HttpOnly/i);
    expect(binding).toMatch(/SameSite=Lax/i);
    expect(binding).toMatch(/Path=\/v0\/auth\/oauth/);
    expect(binding).toMatch(/Max-Age=600/);
    const { code, state } = await followAuthorization(authorize.body.authorization_url as string);
    secrets.push(code, state);
    // Login CSRF: someone else's code and state, posted from the victim's browser.
    const victim = new ApiClient(stack.gatewayUrl);
    expect((await victim.post('/v0/auth/oauth/google/login', { code, state })).body).toMatchObject({ status: 400, code: 'oauth:state_invalid' });
    expect(victim.sessionCookie).toBeUndefined();

    await google.nextLogin(googleLogin(`binding2.${tag()}@example.com`));
    const grant = await providerLogin(starter, 'google');
    starter.dropCookie('oauth_binding');
    expect((await starter.post('/v0/auth/oauth/google/login', grant)).body).toMatchObject({ code: 'oauth:state_invalid' });

    await google.nextLogin(googleLogin(`binding3.${tag()}@example.com`));
    const kept = await providerLogin(starter, 'google');
    const completed = await starter.post('/v0/auth/oauth/google/login', kept);
    expect(completed.status).toBe(200);
    expect(completed.headers.getSetCookie().some((line) => /^oauth_binding=;/.test(line))).toBe(true);
  });

  it('refuses a replayed state, a state of another provider and a code the provider refuses', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    await google.nextLogin(googleLogin(`replay.${tag()}@example.com`));
    const callback = await providerLogin(client, 'google');
    expect((await client.post('/v0/auth/oauth/google/login', callback)).status).toBe(200);
    expect((await client.post('/v0/auth/oauth/google/login', callback)).body).toMatchObject({ status: 400, code: 'oauth:state_invalid' });

    await google.nextLogin(googleLogin(`cross.${tag()}@example.com`));
    const googleCallback = await providerLogin(client, 'google');
    expect((await client.post('/v0/auth/oauth/github/login', googleCallback)).body).toMatchObject({ code: 'oauth:state_invalid' });

    const { state } = await client.get('/v0/auth/oauth/github/authorize').then((r) => r.body as { state: string });
    const refused = await client.post('/v0/auth/oauth/github/login', { code: 'a-code-github-never-issued', state });
    expect(refused.body).toMatchObject({ status: 400, code: 'oauth:code_invalid' });
  });

  it('answers 502 when the provider is down, and 404 for a provider that does not exist', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    await github.nextLogin(githubLogin(`down.${tag()}@example.com`));
    const callback = await providerLogin(client, 'github');
    await github.fail('token', 'reset');
    try {
      const down = await client.post('/v0/auth/oauth/github/login', callback);
      expect(down.status).toBe(502);
      expect(down.body).toMatchObject({ code: 'oauth:provider_unavailable' });
    } finally {
      await github.heal();
    }
    for (const provider of ['facebook', 'microsoft', 'GOOGLE']) {
      expect((await client.get(`/v0/auth/oauth/${provider}/authorize`)).body).toMatchObject({ status: 404, code: 'oauth:provider_not_found' });
    }
  });
});

describe('linking and unlinking', () => {
  it('links a provider to the signed-in account, lists it and unlinks it', async () => {
    const account = await signedInAccount(stack, 'linker');
    const elsewhere = new ApiClient(stack.gatewayUrl);
    expect((await elsewhere.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    expect((await new ApiClient(stack.gatewayUrl).get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(401);
    await google.nextLogin(googleLogin(`other.${tag()}@example.com`));
    const linked = await account.client.post('/v0/auth/oauth/google/link', await providerLogin(account.client, 'google', 'link'));
    expect(linked.status).toBe(201);
    expect(linked.body).toMatchObject({ provider: 'google', provider_user_id: expect.any(String), linked_at: expect.any(String) });
    // A new way in: every other session ends, this one stays.
    expect((await elsewhere.get('/v0/users/me')).status).toBe(401);
    expect((await account.client.get('/v0/users/me')).status).toBe(200);

    // A login state is not a link state.
    await google.nextLogin(googleLogin(`again.${tag()}@example.com`));
    expect((await account.client.post('/v0/auth/oauth/google/link', await providerLogin(account.client, 'google'))).body).toMatchObject({
      code: 'oauth:state_invalid',
    });

    expect((await account.client.get('/v0/auth/oauth/connections')).body.items).toHaveLength(1);
    expect((await account.client.post('/v0/auth/oauth/connections/unlink', { provider: 'google' })).status).toBe(204);
    expect((await account.client.post('/v0/auth/oauth/connections/unlink', { provider: 'google' })).body).toMatchObject({
      status: 404,
      code: 'oauth:connection_not_found',
    });
  });

  it('refuses to link an identity that belongs to another account', async () => {
    const owner = await signedInAccount(stack, 'owner');
    const sub = `g-${tag()}`;
    await google.nextLogin(googleLogin(`shared.${tag()}@example.com`, true, sub));
    expect((await owner.client.post('/v0/auth/oauth/google/link', await providerLogin(owner.client, 'google', 'link'))).status).toBe(201);
    const thief = await signedInAccount(stack, 'thief');
    await google.nextLogin(googleLogin(`shared.${tag()}@example.com`, true, sub));
    expect((await thief.client.post('/v0/auth/oauth/google/link', await providerLogin(thief.client, 'google', 'link'))).body).toMatchObject({
      status: 409,
      code: 'oauth:already_linked',
    });
  });

  it('keeps the last way to sign in of an account without a password, and deletes such an account with a recent sign-in', async () => {
    const email = `solo.${tag()}@example.com`;
    const client = new ApiClient(stack.gatewayUrl);
    await github.nextLogin(githubLogin(email));
    const pending = await client.post('/v0/auth/oauth/github/login', await providerLogin(client, 'github'));
    const handle = `solo_${tag()}`;
    await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle });
    const refused = await client.post('/v0/auth/oauth/connections/unlink', { provider: 'github' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'oauth:last_login_method' });

    // Signed in just now: that is the proof (docs/api.md, "Deleting the account"); a handle is none.
    expect((await client.request('DELETE', '/v0/users/me')).status).toBe(204);
    expect((await client.get('/v0/users/me')).status).toBe(401);
  });
});

describe('secrets', () => {
  it('never logs codes, states, pending tokens or client secrets', () => {
    const output = stack.allOutput();
    expect(output).not.toContain(TEST_OAUTH_CLIENTS.github.secret);
    expect(output).not.toContain('e2e-google-secret');
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

/** The Google subject of the account's connection, to sign the same person in again. */
async function idOfGoogleConnection(client: ApiClient): Promise<string | undefined> {
  const { body } = await client.get<{ items: { provider: string; provider_user_id: string }[] }>('/v0/auth/oauth/connections');
  return body.items.find((item) => item.provider === 'google')?.provider_user_id;
}
