import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { AckPolicy, connect, type NatsConnection } from 'nats';
import { adminV1, eventsV1, sessionsV1 } from '@latchkey/contracts';
import { topology } from '@latchkey/job-streams';
import { jobSubjects } from '@latchkey/jobs-contract';
import { createTestServiceClient, SoftwareAuthenticator, testNatsUrl, waitFor, type CreationOptionsJson, type RequestOptionsJson, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { mailedToken, newAccount, noticeMail, PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { withSessionStore } from '../support/session-records';
import { providerEnvironment, startGoogleFixture, type GoogleFixture } from '../support/oauth-providers';
import { followAuthorization } from '../../services/oauth/test/provider-fixtures';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/**
 * docs/security.md: what a credential change takes back. A session a Redis
 * failover or restore brings back stays refused; a reset removes the ways in
 * added shortly before it; a TOTP challenge does not outlive a reset; an
 * email change can be cancelled from the old address; an automatic provider
 * link does not leave a squatter's password behind; every ended session is
 * announced.
 */
let stack: E2eStack;
let google: GoogleFixture;
let sessions: TestServiceClient<typeof sessionsV1.SessionsServiceService>;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;
let nats: NatsConnection;
let db: pg.Pool;

const APP_URL = 'http://app.example.test';

beforeAll(async () => {
  google = await startGoogleFixture();
  stack = await startE2eStack('credentials', { ...providerEnvironment(APP_URL, { google }), RATE_LIMIT_IP_MAX: '100000' });
  sessions = createTestServiceClient(sessionsV1.SessionsServiceService, `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`);
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`, undefined, {
    operator: 'credential-changes-e2e',
  });
  nats = await connect({ servers: testNatsUrl() });
  db = new pg.Pool({ connectionString: stack.env.DATABASE_URL });
}, 60_000);

afterAll(async () => {
  sessions?.close();
  admin?.close();
  await nats?.close();
  await db?.end();
  await stack?.destroy();
  await google?.stop();
});

/** Plays the browser at Google: authorize with `purpose`, sign in there as `sub`. */
async function googleAnswer(client: ApiClient, purpose: 'login' | 'link', sub: string, email: string) {
  await google.nextLogin({ idToken: { sub, email, email_verified: true } });
  const authorize = await client.get(`/v0/auth/oauth/google/authorize?purpose=${purpose}`);
  expect(authorize.status).toBe(200);
  return followAuthorization(authorize.body.authorization_url as string);
}

async function addPasskey(client: ApiClient, name: string): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator({ origin: stack.env.PUBLIC_APP_URL! });
  const options = await client.post<CreationOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/registration/options');
  expect(options.status).toBe(200);
  const registered = await client.post('/v0/auth/passkeys/registration/verify', { response: authenticator.register(options.body), name });
  expect(registered.status).toBe(201);
  return authenticator;
}

/** A session's cookie works for each thing a client or a service does with it. */
async function uses(client: ApiClient): Promise<{ me: number; token: number; introspected: boolean }> {
  const [me, token, introspected] = await Promise.all([
    client.get('/v0/users/me'),
    client.post('/v0/auth/token'),
    sessions.introspectSession({ token: client.sessionCookie ?? '' }),
  ]);
  return { me: me.status, token: token.status, introspected: introspected.active };
}

describe('revocation on every use', () => {
  it('refuses, within seconds, a session Redis brings back after a password change', async () => {
    const account = await signedInAccount(stack, 'restored');
    const stolen = new ApiClient(stack.gatewayUrl);
    expect((await stolen.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    const snapshot = await withSessionStore(stack, (store) => store.records(account.id));
    expect(snapshot).toHaveLength(2);
    const cookie = stolen.sessionCookie;

    expect((await account.client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: 'taken back for good' })).status).toBe(204);
    expect(await uses(stolen)).toEqual({ me: 401, token: 401, introspected: false });
    // A Redis restored from a snapshot taken before the change holds the old sessions again.
    const restoredAt = Date.now();
    await withSessionStore(stack, (store) => store.restore(snapshot));
    await waitFor(
      async () => {
        const again = new ApiClient(stack.gatewayUrl);
        again.sessionCookie = cookie;
        const answer = await uses(again);
        return answer.me === 401 && answer.token === 401 && !answer.introspected ? true : undefined;
      },
      { description: 'the brought-back session to be refused', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(Date.now() - restoredAt).toBeLessThan(5_000);
    // The session the change started lives on.
    expect((await account.client.get('/v0/users/me')).status).toBe(200);
  });

  it('refuses the sessions of a disabled account, even brought back', async () => {
    const account = await signedInAccount(stack, 'disabled');
    const snapshot = await withSessionStore(stack, (store) => store.records(account.id));
    await admin.disableUser({ userId: account.id, reason: 'test' });
    await withSessionStore(stack, (store) => store.restore(snapshot));
    await waitFor(async () => ((await account.client.get('/v0/users/me')).status === 401 ? true : undefined), {
      description: 'the disabled account’s session to be refused',
      timeoutMs: 5_000,
    });
    expect(snapshot).toHaveLength(1);
  });

  it('does not let a TOTP sign-in begun before a password reset finish after it', async () => {
    const account = await signedInAccount(stack, 'challenge');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    const now = Date.now();
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, 0, now) })).status).toBe(200);
    const phisher = new ApiClient(stack.gatewayUrl);
    const challenge = await phisher.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(challenge.body).toMatchObject({ totp_required: true });

    const owner = new ApiClient(stack.gatewayUrl);
    await owner.post('/v0/auth/forgot-password', { email: account.email });
    const token = await mailedToken(stack, account.email, 'reset-password');
    expect((await owner.post('/v0/auth/reset-password', { token, new_password: 'the owner is back' })).status).toBe(204);

    const finished = await phisher.post('/v0/auth/totp/verify', { temp_token: challenge.body.temp_token, code: totpCode(setup.secret, 1, now) });
    expect(finished.body).toMatchObject({ status: 400, code: 'totp:temp_token_invalid' });
    expect(phisher.sessionCookie).toBeUndefined();
  });
});

describe('a password reset', () => {
  it('removes the passkeys and provider links added shortly before it, keeps older ones, and names both in its notice', async () => {
    const account = await signedInAccount(stack, 'intruded');
    const laptop = await addPasskey(account.client, 'Old laptop');
    // Registered long before: the owner's, not the intruder's.
    await db.query(`UPDATE passkeys.passkeys SET created_at = now() - interval '73 hours' WHERE name = 'Old laptop' AND user_id = $1`, [account.id]);
    // The intruder acts in a session the owner's passkey proved (a stolen session, malware in the owner's browser):
    // with a password alone an account that has a passkey takes no new way in.
    const options = await account.client.post<RequestOptionsJson & Record<string, unknown>>('/v0/auth/passkeys/authentication/options');
    expect((await account.client.post('/v0/auth/reauthenticate', { passkey: laptop.authenticate(options.body) })).status).toBe(200);
    await addPasskey(account.client, 'Intruder key');
    const sub = `g-intruder-${randomBytes(4).toString('hex')}`;
    expect((await account.client.post('/v0/auth/oauth/google/link', await googleAnswer(account.client, 'link', sub, `${sub}@example.com`))).status).toBe(201);
    const newEmail = `intruder.${randomBytes(4).toString('hex')}@example.com`;
    expect((await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: newEmail })).status).toBe(202);
    const confirm = await mailedToken(stack, newEmail, 'confirm-email-change');

    const owner = new ApiClient(stack.gatewayUrl);
    await owner.post('/v0/auth/forgot-password', { email: account.email });
    const token = await mailedToken(stack, account.email, 'reset-password');
    expect((await owner.post('/v0/auth/reset-password', { token, new_password: 'the owner is back' })).status).toBe(204);
    // Gone by the time the reset is answered.
    expect((await owner.post('/v0/auth/login', { email: account.email, password: 'the owner is back' })).status).toBe(200);
    expect(((await owner.get('/v0/auth/passkeys')).body.items as { name: string }[]).map((passkey) => passkey.name)).toEqual(['Old laptop']);
    expect((await owner.get('/v0/auth/oauth/connections')).body.items).toEqual([]);
    const intruderAtGoogle = new ApiClient(stack.gatewayUrl);
    const signIn = await intruderAtGoogle.post('/v0/auth/oauth/google/login', await googleAnswer(intruderAtGoogle, 'login', sub, `${sub}@example.com`));
    expect(signIn.body).toMatchObject({ status: 'pending_signup' });
    // The email change the intruder asked for cannot be completed.
    expect((await owner.post('/v0/auth/confirm-email-change', { token: confirm })).body).toMatchObject({ status: 400, code: 'auth:token_invalid' });

    const notice = await noticeMail(stack, account.email, /Your password was reset|password of your account was just reset/);
    expect(notice.text).toContain('were removed, in case they were not yours: passkey "Intruder key", Google.');
    expect(notice.text).toContain('signed in to with: your new password, passkey "Old laptop".');
  });

  it('is confirmed by identity before its job removes anything: a forged user.reset removes nothing', async () => {
    const account = await signedInAccount(stack, 'forged_reset');
    await addPasskey(account.client, 'Recent key');
    // A real reset of another account, whose id a forger might have seen on the bus.
    const other = await signedInAccount(stack, 'really_reset');
    await other.client.post('/v0/auth/forgot-password', { email: other.email });
    const token = await mailedToken(stack, other.email, 'reset-password');
    expect((await other.client.post('/v0/auth/reset-password', { token, new_password: 'a genuine reset' })).status).toBe(204);
    const { rows } = await db.query<{ id: string }>('SELECT id FROM identity.password_resets WHERE user_id = $1', [other.id]);
    expect(rows).toHaveLength(1);

    const refusals = async (): Promise<number> => {
      const text = await (await fetch(`${stack.operationsUrl('jobs')}/metrics`)).text();
      return Number(/jobs_processed_total\{[^}]*job_type="password_reset"[^}]*outcome="refused"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await refusals();
    const now = Date.now();
    const window = { methods_added_after: new Date(now - 72 * 3_600_000).toISOString(), reset_at: new Date(now).toISOString() };
    const subject = topology(stack.env.NATS_SUBJECT_PREFIX!).subject(jobSubjects.passwordReset);
    // Anyone with a place on the bus could publish these: a reset never made, and another account's.
    for (const resetId of [randomUUID(), rows[0]!.id]) {
      await nats.jetstream().publish(subject, JSON.stringify({ user_id: account.id, reset_id: resetId, ...window }), { msgID: randomUUID() });
    }
    await waitFor(async () => ((await refusals()) >= before + 2 ? true : undefined), { description: 'the forged jobs refused' });
    expect(((await account.client.get('/v0/auth/passkeys')).body.items as { name: string }[]).map((passkey) => passkey.name)).toEqual(['Recent key']);
    expect(stack.smtp!.mails.filter((mail) => mail.to.includes(account.email.toLowerCase()) && /Your password was reset|password of your account was just reset/.test(mail.text))).toEqual([]);
  });
});

describe('an email change', () => {
  it('is announced to the old address, whose link cancels it', async () => {
    const account = await signedInAccount(stack, 'moving');
    const newEmail = `moved.${randomBytes(4).toString('hex')}@example.com`;
    expect((await account.client.post('/v0/auth/change-email', { current_password: PASSWORD, new_email: newEmail })).status).toBe(202);
    const cancel = await mailedToken(stack, account.email, 'cancel-email-change');
    const confirm = await mailedToken(stack, newEmail, 'confirm-email-change');
    const anonymous = new ApiClient(stack.gatewayUrl);
    expect((await anonymous.post('/v0/auth/cancel-email-change', { token: cancel })).status).toBe(204);
    expect((await anonymous.post('/v0/auth/cancel-email-change', { token: cancel })).body).toMatchObject({ status: 400, code: 'auth:token_invalid' });
    expect((await anonymous.post('/v0/auth/confirm-email-change', { token: confirm })).body).toMatchObject({ status: 400, code: 'auth:token_invalid' });
    expect((await account.client.get('/v0/users/me')).body).toMatchObject({ email: account.email });
  });
});

describe('an automatic provider link', () => {
  it('drops a password chosen before the address was verified, ends its sessions, and mails a link to set a new one', async () => {
    const squatted = await signedInAccount(stack, 'squatted');
    const owner = new ApiClient(stack.gatewayUrl);
    const sub = `g-owner-${randomBytes(4).toString('hex')}`;
    const linked = await owner.post('/v0/auth/oauth/google/login', await googleAnswer(owner, 'login', sub, squatted.email));
    expect(linked.body).toMatchObject({ status: 'linked', user: { has_password: false } });
    // Whoever knew that password is out, and cannot come back with it.
    expect((await squatted.client.get('/v0/users/me')).status).toBe(401);
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: squatted.email, password: PASSWORD })).status).toBe(401);
    expect((await owner.get('/v0/users/me')).status).toBe(200);

    const token = await mailedToken(stack, squatted.email, 'reset-password');
    expect((await owner.post('/v0/auth/reset-password', { token, new_password: 'my own password now' })).status).toBe(204);
    expect((await new ApiClient(stack.gatewayUrl).post('/v0/auth/login', { email: squatted.email, password: 'my own password now' })).status).toBe(200);
  });

  it('counts a connection to a deleted account as absent: the identity may sign up again', async () => {
    const client = new ApiClient(stack.gatewayUrl);
    const tag = randomBytes(4).toString('hex');
    const sub = `g-gone-${tag}`;
    const pending = await client.post('/v0/auth/oauth/google/login', await googleAnswer(client, 'login', sub, `gone.${tag}@example.com`));
    expect((await client.post('/v0/auth/complete-signup', { pending_token: pending.body.pending_token, handle: `gone_${tag}` })).status).toBe(201);
    expect((await client.request('DELETE', '/v0/users/me')).status).toBe(204);
    const again = new ApiClient(stack.gatewayUrl);
    const answer = await again.post('/v0/auth/oauth/google/login', await googleAnswer(again, 'login', sub, `gone.${tag}@example.com`));
    expect(answer.body).toMatchObject({ status: 'pending_signup', email: `gone.${tag}@example.com` });
  });
});

describe('session.revoked', () => {
  it('is published for a logout, one session ended by its owner, and one ended by a platform service', async () => {
    const names = topology(stack.env.NATS_SUBJECT_PREFIX!);
    const jsm = await nats.jetstreamManager();
    await jsm.consumers.add(names.eventsStream, {
      durable_name: 'security',
      filter_subject: `${stack.env.NATS_SUBJECT_PREFIX}.events.session.revoked`,
      ack_policy: AckPolicy.Explicit,
    });
    const messages = await (await nats.jetstream().consumers.get(names.eventsStream, 'security')).consume();
    const revoked: eventsV1.SessionRevoked[] = [];
    void (async () => {
      for await (const message of messages) {
        revoked.push(eventsV1.Event.fromJSON(message.json()).sessionRevoked!);
        message.ack();
      }
    })();

    const account = newAccount('announced');
    const clients = [new ApiClient(stack.gatewayUrl), new ApiClient(stack.gatewayUrl), new ApiClient(stack.gatewayUrl)];
    await clients[0]!.post('/v0/users', account);
    await clients[0]!.post('/v0/auth/verify-email', { token: await mailedToken(stack, account.email, 'verify-email') });
    for (const client of clients) expect((await client.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    const listed = (await clients[0]!.get('/v0/auth/sessions')).body.items as { id: string; current: boolean }[];
    const idOf = async (client: ApiClient) => (await sessions.introspectSession({ token: client.sessionCookie! })).session!;
    const [first, second, third] = await Promise.all(clients.map(idOf));
    expect(listed).toHaveLength(3);

    expect((await clients[0]!.post('/v0/auth/logout')).status).toBe(204);
    expect((await clients[1]!.request('DELETE', `/v0/auth/sessions/${third!.sessionId}`)).status).toBe(204);
    await sessions.revokeSession({ userId: second!.userId, sessionId: second!.sessionId });

    const ofAccount = () => revoked.filter((event) => event.userId === first!.userId);
    await waitFor(() => (ofAccount().length >= 3 ? true : undefined), { description: 'three session.revoked events' });
    expect(ofAccount()).toEqual([
      { userId: first!.userId, reason: 'logout', sessionIds: [first!.sessionId], keptSessionId: '' },
      { userId: first!.userId, reason: 'session_revoked', sessionIds: [third!.sessionId], keptSessionId: '' },
      { userId: first!.userId, reason: 'platform', sessionIds: [second!.sessionId], keptSessionId: '' },
    ]);
    messages.stop();
  });
});
