import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { adminV1 } from '@latchkey/contracts';
import {
  createTestServiceClient,
  SoftwareAuthenticator,
  SOFTWARE_AUTHENTICATOR_AAGUID,
  waitFor,
  type CeremonyOverrides,
  type CreationOptionsJson,
  type RequestOptionsJson,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { ApiClient, sessionSetCookie } from '../support/api-client';
import { noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { followAuthorization } from '../../services/oauth/test/provider-fixtures';
import { providerEnvironment, startGoogleFixture, type GoogleFixture } from '../support/oauth-providers';
import { userSchema } from '../../gateway/src/account-view/user-schema';
import { passkeyListSchema, passkeySchema } from '../../gateway/src/passkeys/passkey-schemas';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/** Short, so that a test can see a session go stale; the steps after a sign-in take far less. */
const REAUTH_MAX_AGE_SECONDS = 5;
let stack: E2eStack;
let google: GoogleFixture;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;
/** The web app's origin, where the browser runs the ceremonies. */
let origin: string;

beforeAll(async () => {
  google = await startGoogleFixture();
  stack = await startE2eStack('passkeys', {
    AUTH_REAUTH_MAX_AGE_SECONDS: String(REAUTH_MAX_AGE_SECONDS),
    ...providerEnvironment('http://app.example.test', { google }),
  });
  origin = stack.env.PUBLIC_APP_URL!;
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`, undefined, {
    operator: 'passkeys-e2e',
  });
}, 60_000);

afterAll(async () => {
  admin?.close();
  await stack?.destroy();
  await google?.stop();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;

function authenticatorFor(options: { countsSignatures?: boolean } = {}): SoftwareAuthenticator {
  return new SoftwareAuthenticator({ origin, ...options });
}

async function creationOptions(client: ApiClient): Promise<CreationOptionsJson> {
  const options = await client.post<CreationOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/registration/options');
  expect(options.status).toBe(200);
  return options.body;
}

/** The browser's part of adding a passkey: options, the authenticator, and the answer posted back. */
async function registerPasskey(client: ApiClient, authenticator: SoftwareAuthenticator, name?: string, overrides: CeremonyOverrides = {}) {
  const response = authenticator.register(await creationOptions(client), overrides);
  return client.post('/v0/auth/passkeys/registration/verify', name === undefined ? { response } : { response, name });
}

async function requestOptions(client: ApiClient): Promise<RequestOptionsJson> {
  const options = await client.post<RequestOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/authentication/options');
  expect(options.status).toBe(200);
  return options.body;
}

/** The browser's part of signing in with a passkey. */
async function passkeySignIn(client: ApiClient, authenticator: SoftwareAuthenticator, overrides: CeremonyOverrides = {}) {
  const response = authenticator.authenticate(await requestOptions(client), overrides);
  return client.post('/v0/auth/passkeys/authentication/verify', { response });
}

/**
 * Proves the session again with one of the account's passkeys: a change to
 * the ways into an account that has a passkey needs a multi-factor proof.
 */
async function proveWithPasskey(client: ApiClient, authenticator: SoftwareAuthenticator): Promise<void> {
  const proof = authenticator.authenticate(await requestOptions(client));
  expect((await client.post('/v0/auth/reauthenticate', { passkey: proof })).status).toBe(200);
}

/** A signed-in account with one passkey on a fresh authenticator. */
async function accountWithPasskey(label: string, options: { countsSignatures?: boolean } = {}) {
  const account = await signedInAccount(stack, label);
  const authenticator = authenticatorFor(options);
  const registered = await registerPasskey(account.client, authenticator, `${label} key`);
  expect(registered.status).toBe(201);
  return { ...account, authenticator, passkey: passkeySchema.parse(registered.body) };
}

function problem(status: number, code: string) {
  return { status, code };
}

function answerOf(response: { status: number; body: Record<string, unknown> }) {
  return { status: response.status, code: response.body?.code };
}

async function staleSession(account: Account): Promise<void> {
  await waitFor(
    async () => ((await account.client.post('/v0/auth/passkeys/registration/options')).status === 403 ? true : undefined),
    { timeoutMs: (REAUTH_MAX_AGE_SECONDS + 10) * 1000, intervalMs: 250, description: 'the session to need re-authentication' },
  );
}

describe('adding a passkey', () => {
  it('asks for a discoverable credential with user verification, stores it, mails a notice and counts it', async () => {
    const account = await signedInAccount(stack, 'pkadd');
    const authenticator = authenticatorFor();
    const options = await creationOptions(account.client);
    expect(options).toMatchObject({
      rp: { id: new URL(origin).hostname },
      user: { name: account.email, displayName: account.handle },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const response = authenticator.register(options);
    const added = await account.client.post('/v0/auth/passkeys/registration/verify', { response, name: 'Work laptop' });
    expect(added.status).toBe(201);
    const passkey = passkeySchema.parse(added.body);
    expect(passkey).toMatchObject({ name: 'Work laptop', aaguid: SOFTWARE_AUTHENTICATOR_AAGUID, transports: ['internal'], last_used_at: null });
    expect(passkeyListSchema.parse((await account.client.get('/v0/auth/passkeys')).body).items).toEqual([passkey]);
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ passkeys_count: 1 });
    await noticeMail(stack, account.email, /A passkey \("Work laptop"\) was just added to your account/);

    // The next options (after a proof with the passkey) exclude it, and the authenticator refuses to register twice.
    await proveWithPasskey(account.client, authenticator);
    const again = await creationOptions(account.client);
    expect(again.excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.credentialIds[0] })]);
    expect(() => authenticator.register(again)).toThrow(/InvalidStateError/);
  });

  it('names a passkey the user left unnamed, and renames it', async () => {
    const account = await signedInAccount(stack, 'pkname');
    const added = await registerPasskey(account.client, authenticatorFor());
    const passkey = passkeySchema.parse(added.body);
    expect(passkey.name).toMatch(/^Passkey added \d{4}-\d{2}-\d{2}$/);
    const renamed = await account.client.patch(`/v0/auth/passkeys/${passkey.id}`, { name: '  Phone  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: passkey.id, name: 'Phone' });
    expect(answerOf(await account.client.patch(`/v0/auth/passkeys/${passkey.id}`, { name: 'two\nlines' }))).toEqual(problem(400, 'validation:invalid_input'));
    expect(answerOf(await account.client.patch(`/v0/auth/passkeys/${randomUUID()}`, { name: 'Nope' }))).toEqual(problem(404, 'passkey:not_found'));
    // Another account's passkey is not found either.
    const other = await signedInAccount(stack, 'pkname2');
    expect(answerOf(await other.client.patch(`/v0/auth/passkeys/${passkey.id}`, { name: 'Mine' }))).toEqual(problem(404, 'passkey:not_found'));
    expect(answerOf(await other.client.delete(`/v0/auth/passkeys/${passkey.id}`))).toEqual(problem(404, 'passkey:not_found'));
  });

  it('refuses a credential that is registered already, to this account or another', async () => {
    const first = await accountWithPasskey('pkdup');
    const credentialId = first.authenticator.credentialIds[0]!;
    await proveWithPasskey(first.client, first.authenticator);
    expect(answerOf(await registerPasskey(first.client, first.authenticator, 'Again', { credentialId }))).toEqual(
      problem(409, 'passkey:already_registered'),
    );
    const second = await signedInAccount(stack, 'pkdup2');
    expect(answerOf(await registerPasskey(second.client, first.authenticator, 'Copied', { credentialId }))).toEqual(
      problem(409, 'passkey:already_registered'),
    );
    expect(passkeyListSchema.parse((await second.client.get('/v0/auth/passkeys')).body).items).toEqual([]);
  });

  it('refuses an answer for another origin or RP ID, without user verification, or to another challenge', async () => {
    const account = await signedInAccount(stack, 'pkbadreg');
    const authenticator = authenticatorFor();
    const cases: [CeremonyOverrides, string][] = [
      [{ origin: 'https://evil.example' }, 'passkey:verification_failed'],
      [{ rpId: 'evil.example' }, 'passkey:verification_failed'],
      [{ userVerified: false }, 'passkey:verification_failed'],
      [{ challenge: randomBytes(32).toString('base64url') }, 'passkey:challenge_invalid'],
    ];
    for (const [overrides, code] of cases) {
      expect({ overrides, ...answerOf(await registerPasskey(account.client, authenticator, 'Bad', overrides)) }).toEqual({ overrides, ...problem(400, code) });
    }
    // Every answer used its challenge up: the same answer again finds none.
    const response = authenticator.register(await creationOptions(account.client));
    expect((await account.client.post('/v0/auth/passkeys/registration/verify', { response })).status).toBe(201);
    await proveWithPasskey(account.client, authenticator);
    expect(answerOf(await account.client.post('/v0/auth/passkeys/registration/verify', { response }))).toEqual(problem(400, 'passkey:challenge_invalid'));
    expect(passkeyListSchema.parse((await account.client.get('/v0/auth/passkeys')).body).items).toHaveLength(1);
  });

  it('is refused without a session, and for malformed answers', async () => {
    const anonymous = new ApiClient(stack.gatewayUrl);
    expect((await anonymous.post('/v0/auth/passkeys/registration/options')).status).toBe(401);
    expect((await anonymous.get('/v0/auth/passkeys')).status).toBe(401);
    const account = await signedInAccount(stack, 'pkmalformed');
    await creationOptions(account.client);
    for (const body of [{}, { response: 'text' }, { response: { id: 'x', rawId: 'x', type: 'other', response: { clientDataJSON: 'e30' } } }]) {
      expect(answerOf(await account.client.post('/v0/auth/passkeys/registration/verify', body))).toEqual(problem(400, 'validation:invalid_input'));
    }
    const garbage = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'not-json', attestationObject: 'AAAA' } };
    expect(answerOf(await account.client.post('/v0/auth/passkeys/registration/verify', { response: garbage }))).toEqual(
      problem(400, 'passkey:verification_failed'),
    );
  });
});

describe('signing in with a passkey', () => {
  it('signs in without a password or TOTP code, as a multi-factor sign-in', async () => {
    const account = await signedInAccount(stack, 'pksignin');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    const authenticator = authenticatorFor();
    expect((await registerPasskey(account.client, authenticator, 'Laptop')).status).toBe(201);

    const browser = new ApiClient(stack.gatewayUrl);
    const options = await requestOptions(browser);
    // Discoverable credentials: the options name no account and list no credential.
    expect(options).toMatchObject({ rpId: new URL(origin).hostname, userVerification: 'required' });
    expect(options.allowCredentials ?? []).toEqual([]);
    const signedIn = await browser.post('/v0/auth/passkeys/authentication/verify', { response: authenticator.authenticate(options) });
    expect(signedIn.status).toBe(200);
    expect(userSchema.parse(signedIn.body)).toMatchObject({ id: account.id, totp_enabled: true, passkeys_count: 1 });
    expect(sessionSetCookie(signedIn.headers)).toMatch(/HttpOnly/);
    expect((await browser.get('/v0/users/me')).body).toMatchObject({ id: account.id });

    const token = await browser.post('/v0/auth/token');
    const claims = JSON.parse(Buffer.from((token.body.token as string).split('.')[1]!, 'base64url').toString()) as { amr: string[] };
    expect(claims.amr).toEqual(['webauthn']);
    const [listed] = passkeyListSchema.parse((await browser.get('/v0/auth/passkeys')).body).items;
    expect(Date.now() - Date.parse(listed!.last_used_at!)).toBeLessThan(60_000);
  });

  it('refuses a replayed answer, and an answer carried to another browser', async () => {
    const account = await accountWithPasskey('pkreplay');
    const browser = new ApiClient(stack.gatewayUrl);
    const response = account.authenticator.authenticate(await requestOptions(browser));
    const cookie = `passkey_binding=${browser.cookie('passkey_binding')}`;
    expect((await browser.post('/v0/auth/passkeys/authentication/verify', { response })).status).toBe(200);
    // The same answer with the same binding cookie, as an attacker who copied both would send it.
    const replay = await new ApiClient(stack.gatewayUrl).post('/v0/auth/passkeys/authentication/verify', { response }, { cookie });
    expect(answerOf(replay)).toEqual(problem(400, 'passkey:challenge_invalid'));

    const victim = new ApiClient(stack.gatewayUrl);
    const stolen = account.authenticator.authenticate(await requestOptions(victim));
    const attacker = new ApiClient(stack.gatewayUrl);
    expect(answerOf(await attacker.post('/v0/auth/passkeys/authentication/verify', { response: stolen }))).toEqual(problem(400, 'passkey:challenge_invalid'));
    await requestOptions(attacker);
    expect(answerOf(await attacker.post('/v0/auth/passkeys/authentication/verify', { response: stolen }))).toEqual(problem(400, 'passkey:challenge_invalid'));
    expect(attacker.sessionCookie).toBeUndefined();
  });

  it('refuses an answer for another origin or RP ID, without user verification, or naming another account', async () => {
    const account = await accountWithPasskey('pkbadsign');
    const cases: CeremonyOverrides[] = [
      { origin: 'https://evil.example' },
      { rpId: 'evil.example' },
      { userVerified: false },
      { userHandle: Buffer.from(randomUUID()).toString('base64url') },
    ];
    for (const overrides of cases) {
      const browser = new ApiClient(stack.gatewayUrl);
      const answer = await passkeySignIn(browser, account.authenticator, overrides);
      expect({ overrides, ...answerOf(answer) }).toEqual({ overrides, ...problem(400, 'passkey:verification_failed') });
      expect(browser.sessionCookie).toBeUndefined();
    }
    const unknown = authenticatorFor();
    await proveWithPasskey(account.client, account.authenticator);
    unknown.register({ ...(await creationOptions(account.client)), excludeCredentials: [] });
    expect(answerOf(await passkeySignIn(new ApiClient(stack.gatewayUrl), unknown))).toEqual(problem(400, 'passkey:verification_failed'));
  });

  it('refuses a signature counter that goes back, mails the owner once, marks the passkey, and refuses it from then on', async () => {
    const account = await accountWithPasskey('pkclone');
    expect(account.passkey.suspected_clone).toBe(false);
    expect((await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator)).status).toBe(200);
    expect((await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator)).status).toBe(200);
    const clone = await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator, { counter: 1 });
    expect(answerOf(clone)).toEqual(problem(400, 'passkey:verification_failed'));
    await waitFor(() => (stack.allOutput().includes('possible cloned authenticator') ? true : undefined), { description: 'the clone warning' });
    const mail = await noticeMail(stack, account.email, /A sign-in with your passkey \("pkclone key"\) was just refused/);
    expect(mail.subject).toBe('A copy of one of your passkeys may exist');
    expect(mail.text).toContain('remove that passkey in your account settings');
    const [listed] = passkeyListSchema.parse((await account.client.get('/v0/auth/passkeys')).body).items;
    expect(listed).toMatchObject({ id: account.passkey.id, suspected_clone: true });

    // A copy reports whatever counter it likes: from now on no counter signs in, nor re-authenticates.
    expect(answerOf(await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator, { counter: 1_000 }))).toEqual(
      problem(400, 'passkey:verification_failed'),
    );
    expect(answerOf(await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator, { counter: 2 }))).toEqual(
      problem(400, 'passkey:verification_failed'),
    );
    const proof = account.authenticator.authenticate(await requestOptions(account.client), { counter: 2_000 });
    expect(answerOf(await account.client.post('/v0/auth/reauthenticate', { passkey: proof }))).toEqual(problem(400, 'passkey:verification_failed'));

    // The owner adds the authenticator again as a new passkey. Its notice, queued after any second
    // clone notice would have been, arrives; the clone was reported once.
    expect((await account.client.post('/v0/auth/reauthenticate', { password: PASSWORD })).status).toBe(200);
    const fresh = authenticatorFor();
    expect((await registerPasskey(account.client, fresh, 'pkclone again')).status).toBe(201);
    await noticeMail(stack, account.email, /A passkey \("pkclone again"\) was just added/);
    expect(stack.smtp!.mails.filter((received) => received.to.includes(account.email.toLowerCase()) && received.subject === mail.subject)).toHaveLength(1);
    expect((await passkeySignIn(new ApiClient(stack.gatewayUrl), fresh)).status).toBe(200);
  });

  it('signs in again and again with a synced passkey that keeps no counter', async () => {
    const account = await accountWithPasskey('pksynced', { countsSignatures: false });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator)).status).toBe(200);
    }
  });

  it('does not sign in to a disabled or a deleted account', async () => {
    const account = await accountWithPasskey('pkgone');
    await admin.disableUser({ userId: account.id, reason: 'e2e' });
    expect(answerOf(await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator))).toEqual(problem(403, 'auth:account_disabled'));
    await admin.enableUser({ userId: account.id });
    const browser = new ApiClient(stack.gatewayUrl);
    expect((await passkeySignIn(browser, account.authenticator)).status).toBe(200);

    expect((await browser.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).status).toBe(204);
    expect(answerOf(await passkeySignIn(new ApiClient(stack.gatewayUrl), account.authenticator))).toEqual(problem(400, 'passkey:verification_failed'));
    // The account cleanup removes the passkeys themselves.
    const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
    try {
      await waitFor(async () => {
        const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM passkeys.passkeys WHERE user_id = $1', [account.id]);
        return rows[0]!.count === 0 ? true : undefined;
      }, { description: 'the deleted account’s passkeys to go' });
    } finally {
      await db.end();
    }
  });
});

describe('re-authenticating and removing a passkey', () => {
  it('lets a stale session prove itself with one of its passkeys, never another account’s', async () => {
    const account = await accountWithPasskey('pkreauth');
    const stranger = await accountWithPasskey('pkstranger');
    await staleSession(account);
    expect(answerOf(await account.client.delete(`/v0/auth/passkeys/${account.passkey.id}`))).toEqual(problem(403, 'auth:reauthentication_required'));

    const foreign = stranger.authenticator.authenticate(await requestOptions(account.client));
    expect(answerOf(await account.client.post('/v0/auth/reauthenticate', { passkey: foreign }))).toEqual(problem(400, 'passkey:verification_failed'));
    expect(answerOf(await account.client.post('/v0/auth/reauthenticate', { passkey: account.authenticator.authenticate(await requestOptions(new ApiClient(stack.gatewayUrl))) }))).toEqual(
      problem(400, 'passkey:challenge_invalid'),
    );
    const own = account.authenticator.authenticate(await requestOptions(account.client));
    const proved = await account.client.post('/v0/auth/reauthenticate', { passkey: own });
    expect(proved.status).toBe(200);

    // The account has its password too, so its only passkey may go.
    expect((await account.client.delete(`/v0/auth/passkeys/${account.passkey.id}`)).status).toBe(204);
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ passkeys_count: 0 });
    await noticeMail(stack, account.email, /A passkey \("pkreauth key"\) was just removed from your account/);
  });

  it('keeps a stolen password from adding a passkey to an account that has one, or removing the owner’s', async () => {
    const owner = await accountWithPasskey('pkthief');
    // The thief signs in with the password elsewhere and proves it again: a single factor.
    const thief = new ApiClient(stack.gatewayUrl);
    expect((await thief.post('/v0/auth/login', { email: owner.email, password: PASSWORD })).status).toBe(200);
    expect((await thief.post('/v0/auth/reauthenticate', { password: PASSWORD })).status).toBe(200);
    const refused = problem(403, 'auth:reauthentication_required');
    expect(answerOf(await thief.post('/v0/auth/passkeys/registration/options'))).toEqual(refused);
    expect(answerOf(await thief.delete(`/v0/auth/passkeys/${owner.passkey.id}`))).toEqual(refused);
    expect(answerOf(await thief.post('/v0/auth/totp/setup'))).toEqual(refused);
    expect(passkeyListSchema.parse((await owner.client.get('/v0/auth/passkeys')).body).items).toEqual([expect.objectContaining({ id: owner.passkey.id })]);
    // The owner, with the passkey, may.
    await proveWithPasskey(owner.client, owner.authenticator);
    expect((await registerPasskey(owner.client, authenticatorFor(), 'Second')).status).toBe(201);
  });

  /** An account made by signing up with Google: no password, one linked provider. */
  async function googleOnlyAccount(): Promise<ApiClient> {
    const email = `pkoauth.${randomBytes(4).toString('hex')}@example.com`;
    const client = new ApiClient(stack.gatewayUrl);
    await google.nextLogin({ idToken: { sub: `g-${randomBytes(4).toString('hex')}`, email, email_verified: true, name: 'Ada' } });
    const authorize = await client.get('/v0/auth/oauth/google/authorize?purpose=login');
    const pending = await client.post('/v0/auth/oauth/google/login', await followAuthorization(authorize.body.authorization_url as string));
    const created = await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `pk_${randomBytes(4).toString('hex')}` });
    expect(created.body).toMatchObject({ has_password: false, passkeys_count: 0 });
    return client;
  }

  it('keeps the last way into an account without a password, and lets a passkey replace a provider', async () => {
    const client = await googleOnlyAccount();
    const authenticator = authenticatorFor();
    const first = passkeySchema.parse((await registerPasskey(client, authenticator, 'First')).body);
    // With a passkey, the provider is no longer the only way in; removing it takes a proof with the passkey.
    expect(answerOf(await client.post('/v0/auth/oauth/connections/unlink', { provider: 'google' }))).toEqual(problem(403, 'auth:reauthentication_required'));
    await proveWithPasskey(client, authenticator);
    expect((await client.post('/v0/auth/oauth/connections/unlink', { provider: 'google' })).status).toBe(204);
    expect(answerOf(await client.delete(`/v0/auth/passkeys/${first.id}`))).toEqual(problem(409, 'passkey:last_login_method'));

    const second = passkeySchema.parse((await registerPasskey(client, authenticatorFor(), 'Second')).body);
    expect((await client.delete(`/v0/auth/passkeys/${first.id}`)).status).toBe(204);
    expect(answerOf(await client.delete(`/v0/auth/passkeys/${second.id}`))).toEqual(problem(409, 'passkey:last_login_method'));
    expect(passkeyListSchema.parse((await client.get('/v0/auth/passkeys')).body).items.map((passkey) => passkey.id)).toEqual([second.id]);
  });

  it('lets only one of a passkey removal and a provider unlink sent at once go through when they are the last two ways in', async () => {
    for (let round = 0; round < 4; round += 1) {
      const client = await googleOnlyAccount();
      const authenticator = authenticatorFor();
      const passkey = passkeySchema.parse((await registerPasskey(client, authenticator, 'Only')).body);
      await proveWithPasskey(client, authenticator);
      const [removed, unlinked] = await Promise.all([
        client.delete(`/v0/auth/passkeys/${passkey.id}`),
        client.post('/v0/auth/oauth/connections/unlink', { provider: 'google' }),
      ]);
      const outcomes = [answerOf(removed), answerOf(unlinked)];
      expect(outcomes).toContainEqual({ status: 204, code: undefined });
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([204, 409]);
      const me = await client.get('/v0/users/me');
      const connections = (await client.get('/v0/auth/oauth/connections')).body as { items: unknown[] };
      expect((me.body.passkeys_count as number) + connections.items.length).toBe(1);
    }
  });
});

it('writes no challenge, key or assertion to any log', () => {
  const output = stack.allOutput();
  expect(output).not.toMatch(/"(clientDataJSON|attestationObject|authenticatorData|signature)"/);
  expect(output).not.toMatch(/passkey_binding=/);
});
