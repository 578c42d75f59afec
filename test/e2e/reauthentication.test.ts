import { randomBytes } from 'node:crypto';
import { waitFor } from '@latchkey/test-kit';
import { withSessionStore } from '../support/session-records';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';
import { followAuthorization } from '../../services/oauth/test/provider-fixtures';
import { providerEnvironment, startGoogleFixture, type GoogleFixture } from '../support/oauth-providers';

/**
 * docs/api.md, "Re-authentication", with a proof that grows stale after 2 seconds, and two wrong proofs
 * per account and client before the failure limit answers.
 */
let stack: E2eStack;
let google: GoogleFixture;

beforeAll(async () => {
  google = await startGoogleFixture();
  stack = await startE2eStack('reauth', {
    AUTH_REAUTH_MAX_AGE_SECONDS: '2',
    RATE_LIMIT_LOGIN_FAILURES: '2',
    // Waiting for a proof to grow stale polls a credential route: not what this file tests.
    RATE_LIMIT_IP_MAX: '100000',
    ...providerEnvironment('http://app.example.test', { google }),
  });
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
  await google?.stop();
});

/** Waits until the last proof of identity of the session `client` holds is older than the allowed age. */
async function letGrowStale({ client }: { client: ApiClient }): Promise<void> {
  await waitFor(async () => ((await client.get('/v0/auth/oauth/google/authorize?purpose=link')).status === 403 ? true : undefined), {
    description: 'the sign-in to grow stale',
    intervalMs: 200,
  });
}

/** Plays the client app and the browser: authorize with `purpose`, then sign in at Google as `sub`. */
async function googleAnswer(client: ApiClient, purpose: 'login' | 'reauthenticate', sub: string, email: string) {
  await google.nextLogin({ idToken: { sub, email, email_verified: true } });
  const authorize = await client.get(`/v0/auth/oauth/google/authorize?purpose=${purpose}`);
  expect(authorize.status).toBe(200);
  return followAuthorization(authorize.body.authorization_url as string);
}

describe('re-authentication', () => {
  it('asks a stale session to prove itself again before every change to the ways in', async () => {
    const account = await signedInAccount(stack, 'stale');
    expect((await account.client.post('/v0/auth/totp/setup')).status).toBe(200);
    await letGrowStale(account);
    const privileged: [string, string, unknown][] = [
      ['POST', '/v0/auth/totp/setup', undefined],
      ['POST', '/v0/auth/totp/enable', { setup_token: 'x'.repeat(43), code: '123456' }],
      ['POST', '/v0/auth/totp/disable', { code: '123456' }],
      ['GET', '/v0/auth/oauth/google/authorize?purpose=link', undefined],
      ['POST', '/v0/auth/oauth/google/link', { code: 'a-code', state: 'a-state' }],
      ['POST', '/v0/auth/oauth/connections/unlink', { provider: 'google' }],
      ['POST', '/v0/auth/passkeys/registration/options', undefined],
      ['POST', '/v0/auth/change-email', { current_password: PASSWORD, new_email: 'elsewhere@example.com' }],
    ];
    for (const [method, path, json] of privileged) {
      const answer = await account.client.request(method, path, json === undefined ? {} : { json });
      expect({ path, status: answer.status, code: answer.body?.code }).toEqual({ path, status: 403, code: 'auth:reauthentication_required' });
    }
    // Everything else still works with the session.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);

    expect((await account.client.post('/v0/auth/reauthenticate', { password: 'not the password' })).body).toMatchObject({
      status: 400,
      code: 'auth:wrong_password',
    });
    // Without TOTP there is no code to give.
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, code: '123456' })).body).toMatchObject({
      code: 'totp:not_enabled',
    });
    expect((await account.client.post('/v0/auth/reauthenticate', { code: '123456', backup_code: 'abcd-efgh' })).body).toMatchObject({
      code: 'validation:invalid_input',
    });
    const proved = await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD });
    expect(proved.status).toBe(200);
    expect(Math.abs(Date.parse(proved.body.reauthenticated_at as string) - Date.now())).toBeLessThan(60_000);
    expect((await account.client.post('/v0/auth/totp/setup')).status).toBe(200);
  });

  it('asks an account with TOTP on for both factors, or a passkey: one alone proves nothing and spends nothing', async () => {
    const account = await signedInAccount(stack, 'stalecodes');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    const enabled = await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) });
    expect(enabled.status).toBe(200);
    const backupCodes = enabled.body.backup_codes as string[];
    // Turning TOTP on proved the authenticator on top of a recent password: as strong as a sign-in now.
    expect((await account.client.post('/v0/auth/passkeys/registration/options')).status).toBe(200);

    for (const oneFactor of [{ password: PASSWORD }, { code: totpCode(setup.secret) }, { backup_code: backupCodes[0] }]) {
      expect((await account.client.post('/v0/auth/reauthenticate', oneFactor)).body).toMatchObject({ status: 400, code: 'auth:second_factor_required' });
    }
    const accepted = new Set([-1, 0, 1].map((offset) => totpCode(setup.secret, offset)));
    const wrong = ['000000', '111111', '222222', '333333'].find((candidate) => !accepted.has(candidate))!;
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, code: wrong })).body).toMatchObject({ code: 'totp:invalid_code' });
    // A wrong password is checked first: the backup code stays unspent.
    expect((await account.client.post('/v0/auth/reauthenticate', { password: 'not the password', backup_code: backupCodes[0] })).body).toMatchObject({
      code: 'auth:wrong_password',
    });
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, code: totpCode(setup.secret) })).status).toBe(200);
    expect((await account.client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(200);
    expect((await account.client.post('/v0/auth/passkeys/registration/options')).status).toBe(200);
    await letGrowStale(account);
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, backup_code: backupCodes[0] })).status).toBe(200);
    expect((await account.client.get('/v0/auth/totp/status')).body).toMatchObject({ backup_codes_remaining: 9 });
  });

  it('takes a recent password alone as too little once TOTP is on', async () => {
    const account = await signedInAccount(stack, 'legacy');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    // As a session stored before proofs were kept says: its last proof was its password sign-in.
    await withSessionStore(stack, async (store) => {
      const [own] = await store.records(account.id);
      const stored = JSON.parse(own!.raw) as Record<string, unknown>;
      delete stored.q;
      await store.restore([{ key: own!.key, raw: JSON.stringify({ ...stored, r: ['pwd'], t: Date.now() }) }]);
    });
    expect((await account.client.post('/v0/auth/passkeys/registration/options')).body).toMatchObject({ status: 403, code: 'auth:reauthentication_required' });
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD, code: totpCode(setup.secret) })).status).toBe(200);
    expect((await account.client.post('/v0/auth/passkeys/registration/options')).status).toBe(200);
  });

  it('deletes an account without a password only after a recent proof', async () => {
    const tag = randomBytes(4).toString('hex');
    const client = new ApiClient(stack.gatewayUrl);
    const pending = await client.post('/v0/auth/oauth/google/login', await googleAnswer(client, 'login', `g-del-${tag}`, `del.${tag}@example.com`));
    await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `del_${tag}` });
    await letGrowStale({ client });
    expect((await client.request('DELETE', '/v0/users/me', { json: { handle: `del_${tag}` } })).body).toMatchObject({
      status: 403,
      code: 'auth:reauthentication_required',
    });
    expect((await client.post('/v0/auth/oauth/google/reauthenticate', await googleAnswer(client, 'reauthenticate', `g-del-${tag}`, `del.${tag}@example.com`))).status).toBe(200);
    expect((await client.request('DELETE', '/v0/users/me')).status).toBe(204);
  });

  it('completes a provider re-authentication of an account with TOTP with a code, and only then', async () => {
    const tag = randomBytes(4).toString('hex');
    const own = { sub: `g-totp-${tag}`, email: `totp.${tag}@example.com` };
    const client = new ApiClient(stack.gatewayUrl);
    const pending = await client.post('/v0/auth/oauth/google/login', await googleAnswer(client, 'login', own.sub, own.email));
    await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `totp_${tag}` });
    const setup = totpSetupSchema.parse((await client.post('/v0/auth/totp/setup')).body);
    expect((await client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    await letGrowStale({ client });

    // No provider proof yet: a code alone is one factor.
    expect((await client.post('/v0/auth/reauthenticate', { code: totpCode(setup.secret) })).body).toMatchObject({ code: 'auth:second_factor_required' });
    const firstFactor = await client.post('/v0/auth/oauth/google/reauthenticate', await googleAnswer(client, 'reauthenticate', own.sub, own.email));
    expect(firstFactor.body).toMatchObject({ status: 400, code: 'auth:second_factor_required' });
    expect((await client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(403);
    expect((await client.post('/v0/auth/reauthenticate', { code: totpCode(setup.secret) })).status).toBe(200);
    expect((await client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(200);
  });

  it('proves an account without a password through its linked provider, and only with its own identity', async () => {
    const tag = randomBytes(4).toString('hex');
    const own = { sub: `g-own-${tag}`, email: `own.${tag}@example.com` };
    const stranger = { sub: `g-stranger-${tag}`, email: `stranger.${tag}@example.com` };
    const client = new ApiClient(stack.gatewayUrl);
    const pending = await client.post('/v0/auth/oauth/google/login', await googleAnswer(client, 'login', own.sub, own.email));
    const signedUp = await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `own_${tag}` });
    expect(signedUp.body).toMatchObject({ has_password: false });
    await letGrowStale({ client });

    // A login state, or a reauthenticate state completed without the browser's binding, proves nothing.
    const loginState = await googleAnswer(client, 'login', own.sub, own.email);
    expect((await client.post('/v0/auth/oauth/google/reauthenticate', loginState)).body).toMatchObject({ code: 'oauth:state_invalid' });
    const unbound = await googleAnswer(client, 'reauthenticate', own.sub, own.email);
    client.dropCookie('oauth_binding');
    expect((await client.post('/v0/auth/oauth/google/reauthenticate', unbound)).body).toMatchObject({ code: 'oauth:state_invalid' });

    const proved = await client.post('/v0/auth/oauth/google/reauthenticate', await googleAnswer(client, 'reauthenticate', own.sub, own.email));
    expect(proved.status).toBe(200);
    expect(Math.abs(Date.parse(proved.body.reauthenticated_at as string) - Date.now())).toBeLessThan(60_000);
    expect((await client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(200);

    // Whoever holds the session signs in at Google as themselves: a wrong proof, counted like a wrong password.
    await letGrowStale({ client });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await client.post('/v0/auth/oauth/google/reauthenticate', await googleAnswer(client, 'reauthenticate', stranger.sub, stranger.email));
      expect(answer.body).toMatchObject({ status: 400, code: 'oauth:identity_not_linked' });
    }
    const limited = await client.post('/v0/auth/oauth/google/reauthenticate', await googleAnswer(client, 'reauthenticate', own.sub, own.email));
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limit:exceeded' });
    expect((await client.get('/v0/auth/oauth/google/authorize?purpose=link')).status).toBe(403);
  });

  it('needs a session', async () => {
    const anonymous = new ApiClient(stack.gatewayUrl);
    expect((await anonymous.post('/v0/auth/reauthenticate', { password: PASSWORD })).status).toBe(401);
    expect((await anonymous.get('/v0/auth/oauth/google/authorize?purpose=reauthenticate')).status).toBe(401);
    expect((await anonymous.post('/v0/auth/oauth/google/reauthenticate', { code: 'a-code', state: 'x'.repeat(43) })).status).toBe(401);
  });
});
