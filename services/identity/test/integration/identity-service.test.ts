import { randomBytes, randomUUID } from 'node:crypto';
import { connect, AckPolicy, type NatsConnection, type JsMsg } from 'nats';
import argon2 from 'argon2';
import pg from 'pg';
import { Redis } from 'ioredis';
import { adminV1, identityV1, oidcV1 } from '@latchkey/contracts';
import { sessionKey, userSessionsKey } from '@latchkey/session-keys';
import { AppError } from '@latchkey/errors';
import { jobSubjects, mailJobSchema, type MailJob } from '@latchkey/jobs-contract';
import { ensureStreams, topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  waitFor,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';
import { deleteExpiredEndings } from '../../src/ended-sessions';
import { deleteOldResets } from '../../src/reset-records';

const logger = createLogger({ service: 'identity-test', level: 'silent' });
const password = 'correct horse battery';
/** The person admin.v1 calls are made for in these tests. */
const OPERATOR = 'Zoë Ops <zoe@ops.example>';

let database: TestDatabase;
let service: Running;
let client: TestServiceClient<typeof identityV1.IdentityServiceService>;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;
let oidc: TestServiceClient<typeof oidcV1.OidcServiceService>;
let redis: Redis;
let nats: NatsConnection;
let prefix: string;
let db: pg.Pool;
let subscription: { stop(): void } | undefined;
const jobs: { id: string; job: MailJob }[] = [];
const deletionJobs: string[] = [];
const otherJobs: { subject: string; payload: unknown }[] = [];

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

function mailTo(to: string, template: MailJob['template']): Promise<MailJob> {
  return waitFor(() => [...jobs].reverse().find((j) => j.job.to === to && j.job.template === template)?.job, {
    description: `${template} mail to ${to}`,
  });
}

async function tokenFor(
  to: string,
  template: 'verify_email' | 'reset_password' | 'confirm_email_change' | 'email_change_requested' | 'password_dropped',
): Promise<string> {
  const job = await mailTo(to, template);
  if (!('token' in job)) throw new Error('no token');
  return job.token;
}

let counter = 0;
function newAccount() {
  counter += 1;
  const tag = `${counter}_${Date.now().toString(36)}`;
  return { handle: `User_${tag}`.slice(0, 32), email: `User.${tag}@Example.COM`, password };
}

async function registerVerified() {
  const account = newAccount();
  const { user } = await client.registerUser(account);
  await client.verifyEmail({ token: await tokenFor(user!.email, 'verify_email') });
  return { ...account, user: user! };
}

beforeAll(async () => {
  database = await createTestDatabase('identity');
  prefix = uniqueName('identity');
  const config = loadIdentityConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    ADMIN_GRPC_PORT: '0',
    METRICS_PORT: '0',
    ARGON2_TIME_COST: '3',
  });
  await migrate(config, logger);
  service = await startIdentityService(config, logger);
  client = createTestServiceClient(identityV1.IdentityServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${String(service.readyFields?.admin_grpc_port)}`, undefined, {
    operator: OPERATOR,
  });
  oidc = createTestServiceClient(oidcV1.OidcServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
  redis = new Redis(testRedisUrl());
  db = new pg.Pool({ connectionString: database.url, options: '-c search_path=identity' });

  nats = await connect({ servers: testNatsUrl() });
  const names = topology(prefix);
  // The jobs worker owns the streams; here the test stands in for it.
  const jsm = await nats.jetstreamManager();
  await ensureStreams(jsm, prefix);
  await jsm.consumers.add(names.jobsStream, { durable_name: 'test', ack_policy: AckPolicy.Explicit });
  const consumer = await nats.jetstream().consumers.get(names.jobsStream, 'test');
  const messages = await consumer.consume();
  await waitFor(() => jsm.streams.info(names.eventsStream), { description: 'the events stream' });
  await jsm.consumers.add(names.eventsStream, { durable_name: 'test', ack_policy: AckPolicy.Explicit });
  const events = await (await nats.jetstream().consumers.get(names.eventsStream, 'test')).consume();
  subscription = { stop: () => [messages, events].forEach((stream) => stream.stop()) };
  for (const stream of [messages, events]) {
    void (async () => {
      for await (const message of stream) record(message);
    })();
  }
});

/** Keeps the mail jobs, the user ids of `user.deleted` jobs, and any other job. */
function record(message: JsMsg): void {
  if (message.subject.endsWith(jobSubjects.userDeleted)) deletionJobs.push(message.json<{ user_id: string }>().user_id);
  else if (message.subject.endsWith(jobSubjects.sendMail)) jobs.push({ id: message.headers?.get('Nats-Msg-Id') ?? '', job: mailJobSchema.parse(message.json()) });
  else otherJobs.push({ subject: message.subject, payload: message.json() });
  message.ack();
}

afterAll(async () => {
  subscription?.stop();
  client?.close();
  admin?.close();
  oidc?.close();
  await redis?.quit();
  await service?.stop();
  const jsm = await nats?.jetstreamManager();
  const names = topology(prefix);
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nats?.close();
  await db?.end();
  await database?.drop();
});

describe('registration and verification', () => {
  it('creates an unverified, normalised account and mails a verification token through the outbox', async () => {
    const account = newAccount();
    const { user } = await client.registerUser(account);
    expect(user).toMatchObject({
      handle: account.handle.toLowerCase(),
      email: account.email.toLowerCase(),
      hasPassword: true,
      emailVerifiedAt: undefined,
    });
    expect(user!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    const token = await tokenFor(user!.email, 'verify_email');
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // The relay deletes what it published, and the id travelled as Nats-Msg-Id.
    await waitFor(async () => ((await db.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n === 0 ? true : undefined));
    expect(jobs.find((j) => j.job.to === user!.email)?.id).toMatch(/^[0-9a-f-]{36}$/);
    // Only a hash of the token is stored.
    const stored = await db.query<{ token_hash: Buffer }>('SELECT token_hash FROM one_time_tokens WHERE user_id = $1', [
      user!.id,
    ]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.token_hash.toString('base64url')).not.toBe(token);

    const verified = await client.verifyEmail({ token });
    expect(verified.user!.emailVerifiedAt).toBeInstanceOf(Date);
    expect((await errorOf(client.verifyEmail({ token }))).code).toBe('auth:token_invalid');
  });

  it('refuses a taken handle or email, in any case', async () => {
    const account = newAccount();
    await client.registerUser(account);
    expect((await errorOf(client.registerUser({ ...newAccount(), handle: account.handle.toUpperCase() }))).code).toBe(
      'user:handle_taken',
    );
    expect((await errorOf(client.registerUser({ ...newAccount(), email: ` ${account.email.toUpperCase()} ` }))).code).toBe(
      'user:email_taken',
    );
  });

  it('lists every invalid field at once', async () => {
    const error = await errorOf(client.registerUser({ handle: 'a!', email: 'not-an-email', password: 'short' }));
    expect(error.code).toBe('validation:invalid_input');
    expect(error.fields.map((f) => f.field).sort()).toEqual(['email', 'handle', 'password']);
  });

  it('refuses an address that cannot receive mail, at registration and at an email change', async () => {
    for (const email of [`${'a'.repeat(65)}@example.com`, 'ann@example', 'ann@-example.com', `ann@${'d'.repeat(64)}.com`]) {
      const error = await errorOf(client.registerUser({ ...newAccount(), email }));
      expect(error.fields.map((f) => f.field)).toEqual(['email']);
    }
    const account = await registerVerified();
    const error = await errorOf(
      client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail: 'ann@example-.com' }),
    );
    expect(error.fields.map((f) => f.field)).toEqual(['new_email']);
  });

  it('refuses a password equal to the email or the handle', async () => {
    const account = newAccount();
    const error = await errorOf(client.registerUser({ ...account, password: account.handle.toUpperCase() }));
    expect(error.fields).toEqual([{ field: 'password', message: 'must not be the email or the handle' }]);
  });

  it('refuses an expired verification token', async () => {
    const account = newAccount();
    const { user } = await client.registerUser(account);
    const token = await tokenFor(user!.email, 'verify_email');
    await db.query("UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1", [user!.id]);
    expect((await errorOf(client.verifyEmail({ token }))).code).toBe('auth:token_invalid');
  });

  it('sends a new verification mail only for an unverified account, answering alike otherwise', async () => {
    const account = newAccount();
    const { user } = await client.registerUser(account);
    const first = await tokenFor(user!.email, 'verify_email');
    await client.sendVerificationEmail({ email: account.email });
    const second = await waitFor(async () => {
      const token = await tokenFor(user!.email, 'verify_email');
      return token === first ? undefined : token;
    });
    // Only the newest link works.
    expect((await errorOf(client.verifyEmail({ token: first }))).code).toBe('auth:token_invalid');
    await client.verifyEmail({ token: second });
    await expect(client.sendVerificationEmail({ email: 'nobody@example.com' })).resolves.toEqual({});
    await expect(client.sendVerificationEmail({ userId: user!.id })).resolves.toEqual({});
  });
});

describe('password login', () => {
  it('checks the password before the verified email', async () => {
    const account = newAccount();
    await client.registerUser(account);
    expect((await errorOf(client.authenticatePassword({ email: account.email, password: 'wrong password' }))).code).toBe(
      'auth:invalid_credentials',
    );
    expect((await errorOf(client.authenticatePassword(account))).code).toBe('auth:email_not_verified');
  });

  it('upgrades a hash made with weaker parameters without counting it a password change', async () => {
    const account = await registerVerified();
    const weak = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [account.user.id, weak]);
    const before = await db.query<{ session_epoch: number; password_set_at: Date }>('SELECT session_epoch, password_set_at FROM users WHERE id = $1', [account.user.id]);
    const { user } = await client.authenticatePassword(account);
    // The sessions of an unchanged password stay: the new session carries the same epoch.
    expect(user!.sessionEpoch).toBe(before.rows[0]!.session_epoch);
    const after = await waitFor(async () => {
      const { rows } = await db.query<{ password_hash: string; session_epoch: number; password_set_at: Date }>(
        'SELECT password_hash, session_epoch, password_set_at FROM users WHERE id = $1',
        [account.user.id],
      );
      return rows[0]!.password_hash === weak ? undefined : rows[0]!;
    });
    expect(after.password_hash).toContain('t=3');
    expect(after.session_epoch).toBe(before.rows[0]!.session_epoch);
    expect(after.password_set_at).toEqual(before.rows[0]!.password_set_at);
    await expect(client.authenticatePassword(account)).resolves.toBeDefined();
  });

  it('signs in a verified account with its email in any case', async () => {
    const account = await registerVerified();
    const { user } = await client.authenticatePassword({ email: account.email.toUpperCase(), password });
    expect(user!.id).toBe(account.user.id);
  });

  it('answers an unknown email like a wrong password, after the same hashing work', async () => {
    const account = await registerVerified();
    const time = async (email: string): Promise<number> => {
      const started = performance.now();
      const error = await errorOf(client.authenticatePassword({ email, password: 'wrong password' }));
      expect(error.code).toBe('auth:invalid_credentials');
      return performance.now() - started;
    };
    await time('warm-up@example.com');
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      unknown.push(await time(`nobody-${i}@example.com`));
      wrong.push(await time(account.email));
    }
    // A lookup without Argon2 would be over ten times faster than one with it.
    expect(median(unknown)).toBeGreaterThan(median(wrong) * 0.5);
  });

  it('upgrades a hash made with weaker parameters on a successful login', async () => {
    const account = await registerVerified();
    const argon2 = await import('argon2');
    const weak = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [account.user.id, weak]);
    await client.authenticatePassword(account);
    const { rows } = await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [
      account.user.id,
    ]);
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=3,p=1\$/);
    await expect(client.authenticatePassword(account)).resolves.toBeDefined();
  });

  it('treats NFKC-equivalent passwords as the same password', async () => {
    const account = newAccount();
    const { user } = await client.registerUser({ ...account, password: 'ｐａｓｓｗｏｒｄ１２３' });
    await client.verifyEmail({ token: await tokenFor(user!.email, 'verify_email') });
    await expect(client.authenticatePassword({ email: account.email, password: 'password123' })).resolves.toBeDefined();
  });
});

describe('password reset', () => {
  it('resets with a mailed token once, verifies the email, and queues the job that takes back recent ways in and mails the notice', async () => {
    const account = newAccount();
    const { user } = await client.registerUser(account);
    await client.requestPasswordReset({ email: account.email.toUpperCase() });
    const token = await tokenFor(user!.email, 'reset_password');

    const invalid = await errorOf(client.resetPassword({ token, newPassword: 'short' }));
    expect(invalid.fields).toEqual([{ field: 'new_password', message: 'must be 8-128 characters' }]);

    const reset = await client.resetPassword({ token, newPassword: 'a brand new password' });
    expect(reset.userId).toBe(user!.id);
    // AUTH_RESET_REVOKES_METHODS_HOURS, 72 by default, before the reset.
    expect(reset.resetAt!.getTime() - reset.methodsAddedAfter!.getTime()).toBe(72 * 3_600_000);
    expect((await errorOf(client.resetPassword({ token, newPassword: 'another new password' }))).code).toBe(
      'auth:token_invalid',
    );
    const job = await waitFor(() => otherJobs.find((other) => other.subject.endsWith(jobSubjects.passwordReset) && (other.payload as { user_id: string }).user_id === user!.id), {
      description: 'the user.reset job',
    });
    expect(job.payload).toEqual({
      user_id: user!.id,
      reset_id: reset.resetId,
      methods_added_after: reset.methodsAddedAfter!.toISOString(),
      reset_at: reset.resetAt!.toISOString(),
    });
    const { user: signedIn } = await client.authenticatePassword({ email: account.email, password: 'a brand new password' });
    expect(signedIn!.emailVerifiedAt).toBeInstanceOf(Date);
  });

  it('withdraws a pending email change: its confirmation link no longer works', async () => {
    const account = await registerVerified();
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail: `away.${account.user.handle}@example.org` });
    const confirm = await tokenFor(`away.${account.user.handle}@example.org`, 'confirm_email_change');
    await client.requestPasswordReset({ email: account.email });
    await client.resetPassword({ token: await tokenFor(account.user.email, 'reset_password'), newPassword: 'taken back at last' });
    expect((await errorOf(client.confirmEmailChange({ token: confirm }))).code).toBe('auth:token_invalid');
  });

  it('answers the resets it made, to the worker that confirms a user.reset job, and no other', async () => {
    const account = await registerVerified();
    await client.requestPasswordReset({ email: account.email });
    const reset = await client.resetPassword({ token: await tokenFor(account.user.email, 'reset_password'), newPassword: 'reset for the record' });
    expect(await client.getPasswordReset({ userId: account.user.id, resetId: reset.resetId })).toEqual({
      reset: { resetId: reset.resetId, userId: account.user.id, resetAt: reset.resetAt, methodsAddedAfter: reset.methodsAddedAfter },
    });
    // Another account's, or one never made: none.
    const other = await registerVerified();
    expect((await client.getPasswordReset({ userId: other.user.id, resetId: reset.resetId })).reset).toBeUndefined();
    expect((await client.getPasswordReset({ userId: account.user.id, resetId: randomUUID() })).reset).toBeUndefined();
    const invalid = await errorOf(client.getPasswordReset({ userId: 'nope', resetId: 'nope' }));
    expect(invalid.fields.map((field) => field.field)).toEqual(['user_id', 'reset_id']);
    // Forgotten after eight days, and with the account.
    await db.query(`UPDATE identity.password_resets SET reset_at = now() - interval '9 days' WHERE id = $1`, [reset.resetId]);
    expect(await deleteOldResets(db)).toBeGreaterThanOrEqual(1);
    expect((await client.getPasswordReset({ userId: account.user.id, resetId: reset.resetId })).reset).toBeUndefined();
    const deleted = await registerVerified();
    await client.requestPasswordReset({ email: deleted.email });
    const gone = await client.resetPassword({ token: await tokenFor(deleted.user.email, 'reset_password'), newPassword: 'reset before leaving' });
    await client.deleteUser({ userId: deleted.user.id });
    expect((await client.getPasswordReset({ userId: deleted.user.id, resetId: gone.resetId })).reset).toBeUndefined();
  });

  it('answers the same for an unknown email and mails nothing', async () => {
    await expect(client.requestPasswordReset({ email: 'ghost@example.com' })).resolves.toEqual({});
    await expect(client.requestPasswordReset({ email: 'not an email' })).resolves.toEqual({});
  });
});

/**
 * An application's consent, refresh token and access token for the account,
 * saved through oidc.v1 as the gateway's OpenID Provider saves them; `held`
 * answers which of them still work.
 */
async function applicationAccess(userId: string) {
  const value = () => randomBytes(32).toString('base64url');
  const [grant, refresh, access] = [value(), value(), value()];
  const save = (kind: string, id: string, fields: Record<string, unknown>) =>
    oidc.saveArtifact({
      kind,
      id,
      payloadJson: JSON.stringify({ jti: id, kind, clientId: 'app', accountId: userId, ...fields }),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
  await save('Grant', grant, { openid: { scope: 'openid offline_access' } });
  await save('RefreshToken', refresh, { grantId: grant, scope: 'openid offline_access' });
  await save('AccessToken', access, { grantId: grant, scope: 'openid offline_access' });
  const works = async (kind: string, id: string) => (await oidc.findArtifact({ kind, id, userCode: '', withGrantAndAccount: false, otherKinds: [] })).found;
  return {
    held: async () => ({
      refreshToken: await works('RefreshToken', refresh),
      accessToken: await works('AccessToken', access),
      consent: (await oidc.findUserGrant({ userId, clientId: 'app', withGrantAndAccount: false })).found,
    }),
  };
}

describe('password change', () => {
  it('ends the applications’ refresh and access tokens, keeping their consents', async () => {
    const account = await registerVerified();
    const application = await applicationAccess(account.user.id);
    expect(await application.held()).toEqual({ refreshToken: true, accessToken: true, consent: true });
    await client.changePassword({ userId: account.user.id, currentPassword: password, newPassword: 'a new password' });
    expect(await application.held()).toEqual({ refreshToken: false, accessToken: false, consent: true });
  });

  it('needs the current password and notifies the owner', async () => {
    const account = await registerVerified();
    const wrong = await errorOf(
      client.changePassword({ userId: account.user.id, currentPassword: 'nope nope', newPassword: 'a new password' }),
    );
    expect(wrong.code).toBe('auth:wrong_password');
    await client.changePassword({ userId: account.user.id, currentPassword: password, newPassword: 'a new password' });
    expect(await mailTo(account.user.email, 'security_notice')).toMatchObject({ notice: 'password_changed' });
    expect((await errorOf(client.authenticatePassword(account))).code).toBe('auth:invalid_credentials');
    await expect(client.authenticatePassword({ email: account.email, password: 'a new password' })).resolves.toBeDefined();
  });

  it('withdraws a pending email change', async () => {
    const account = await registerVerified();
    const newEmail = `elsewhere.${account.user.handle}@example.org`;
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail });
    const confirm = await tokenFor(newEmail, 'confirm_email_change');
    await client.changePassword({ userId: account.user.id, currentPassword: password, newPassword: 'owner is back' });
    expect((await errorOf(client.confirmEmailChange({ token: confirm }))).code).toBe('auth:token_invalid');
  });

  it('refuses an account without a password', async () => {
    const account = await registerVerified();
    await db.query('UPDATE users SET password_hash = NULL, password_set_at = NULL WHERE id = $1', [account.user.id]);
    const error = await errorOf(
      client.changePassword({ userId: account.user.id, currentPassword: password, newPassword: 'a new password' }),
    );
    expect(error.code).toBe('auth:password_not_set');
  });
});

describe('email change', () => {
  it('announces a requested change to the old address with a link that cancels it', async () => {
    const account = await registerVerified();
    const newEmail = `next.${account.user.handle}@example.org`;
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail });
    const announcement = await mailTo(account.user.email, 'email_change_requested');
    expect(announcement).toMatchObject({ new_email: newEmail, handle: account.user.handle });
    const confirm = await tokenFor(newEmail, 'confirm_email_change');
    const cancel = await tokenFor(account.user.email, 'email_change_requested');
    await client.cancelEmailChange({ token: cancel });
    expect((await errorOf(client.confirmEmailChange({ token: confirm }))).code).toBe('auth:token_invalid');
    expect((await errorOf(client.cancelEmailChange({ token: cancel }))).code).toBe('auth:token_invalid');
    // A confirmation link is no cancel link, nor the other way round.
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail });
    const second = await waitFor(async () => {
      const token = await tokenFor(newEmail, 'confirm_email_change');
      return token === confirm ? undefined : token;
    });
    expect((await errorOf(client.cancelEmailChange({ token: second }))).code).toBe('auth:token_invalid');
    await client.confirmEmailChange({ token: second });
  });

  it('moves the account after confirmation and tells the old address', async () => {
    const account = await registerVerified();
    const newEmail = `moved.${account.user.handle}@example.org`;
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail: newEmail.toUpperCase() });
    const token = await tokenFor(newEmail, 'confirm_email_change');
    const { user } = await client.confirmEmailChange({ token });
    expect(user).toMatchObject({ email: newEmail });
    expect(user!.emailVerifiedAt).toBeInstanceOf(Date);
    expect(await mailTo(account.user.email, 'security_notice')).toMatchObject({ notice: 'email_changed', new_email: newEmail });
    expect((await errorOf(client.confirmEmailChange({ token }))).code).toBe('auth:token_invalid');
  });

  it('ends the applications’ refresh and access tokens when confirmed, not when asked, keeping their consents', async () => {
    const account = await registerVerified();
    const application = await applicationAccess(account.user.id);
    const newEmail = `apps.${account.user.handle}@example.org`;
    await client.requestEmailChange({ userId: account.user.id, currentPassword: password, newEmail });
    expect(await application.held()).toEqual({ refreshToken: true, accessToken: true, consent: true });
    await client.confirmEmailChange({ token: await tokenFor(newEmail, 'confirm_email_change') });
    expect(await application.held()).toEqual({ refreshToken: false, accessToken: false, consent: true });
  });

  it('refuses a taken address, a wrong password and the same address', async () => {
    const first = await registerVerified();
    const second = await registerVerified();
    const request = { userId: first.user.id, currentPassword: password };
    expect((await errorOf(client.requestEmailChange({ ...request, newEmail: second.email }))).code).toBe('user:email_taken');
    expect(
      (await errorOf(client.requestEmailChange({ ...request, currentPassword: 'wrong one', newEmail: 'x@example.com' }))).code,
    ).toBe('auth:wrong_password');
    expect((await errorOf(client.requestEmailChange({ ...request, newEmail: first.email }))).code).toBe(
      'validation:invalid_input',
    );
  });

  it('refuses the confirmation when the address was taken meanwhile', async () => {
    const first = await registerVerified();
    const contested = `contested.${first.user.handle}@example.org`;
    await client.requestEmailChange({ userId: first.user.id, currentPassword: password, newEmail: contested });
    const token = await tokenFor(contested, 'confirm_email_change');
    await client.registerUser({ ...newAccount(), email: contested });
    expect((await errorOf(client.confirmEmailChange({ token }))).code).toBe('user:email_taken');
  });
});

describe('accounts vouched for by a provider', () => {
  it('creates a verified account without a password and finds it by email', async () => {
    const account = newAccount();
    const { user } = await client.createVerifiedUser({ handle: account.handle, email: account.email });
    expect(user).toMatchObject({ handle: account.handle.toLowerCase(), hasPassword: false });
    expect(user!.emailVerifiedAt).toBeInstanceOf(Date);
    expect((await client.getUserByEmail({ email: ` ${account.email.toUpperCase()} ` })).user?.id).toBe(user!.id);
    expect((await client.getUserByEmail({ email: 'nobody@example.com' })).user).toBeUndefined();
    // Without a password, password login fails like any wrong password.
    expect((await errorOf(client.authenticatePassword({ email: account.email, password }))).code).toBe('auth:invalid_credentials');
    expect((await errorOf(client.createVerifiedUser({ handle: account.handle, email: 'other@example.com' }))).code).toBe(
      'user:handle_taken',
    );
  });
});

describe('preparing an automatic provider link', () => {
  it('drops a password set before the email was verified, ends every session, and mails a link to set a new one', async () => {
    const account = await registerVerified();
    const before = (await client.getUser({ userId: account.user.id })).user!;
    const { user, passwordDropped } = await client.prepareProviderLink({ userId: account.user.id, provider: 'google' });
    expect(passwordDropped).toBe(true);
    expect(user).toMatchObject({ hasPassword: false, sessionEpoch: before.sessionEpoch + 1 });
    expect((await errorOf(client.authenticatePassword(account))).code).toBe('auth:invalid_credentials');
    const revoked = await waitFor(
      () => otherJobs.find((job) => job.subject.endsWith(jobSubjects.sessionsRevoked) && (job.payload as { user_id: string }).user_id === account.user.id),
      { description: 'the sessions.revoked job' },
    );
    expect(revoked.payload).toEqual({ user_id: account.user.id, session_epoch: before.sessionEpoch + 1 });
    expect(await mailTo(account.user.email, 'password_dropped')).toMatchObject({ provider: 'google' });
    // The link sets a password the owner chose after proving the address: the next link keeps it.
    await client.resetPassword({ token: await tokenFor(account.user.email, 'password_dropped'), newPassword: 'chosen by the owner' });
    await expect(client.prepareProviderLink({ userId: account.user.id, provider: 'github' })).resolves.toMatchObject({ passwordDropped: false });
    await expect(client.authenticatePassword({ email: account.email, password: 'chosen by the owner' })).resolves.toBeDefined();
  });

  it('keeps a password changed after the verification, and refuses an unverified or unknown account', async () => {
    const account = await registerVerified();
    await client.changePassword({ userId: account.user.id, currentPassword: password, newPassword: 'changed after verifying' });
    await expect(client.prepareProviderLink({ userId: account.user.id, provider: 'google' })).resolves.toMatchObject({
      passwordDropped: false,
      user: { hasPassword: true },
    });
    const unverified = newAccount();
    const { user } = await client.registerUser(unverified);
    expect((await errorOf(client.prepareProviderLink({ userId: user!.id, provider: 'google' }))).code).toBe('oauth:email_not_verified');
    expect((await errorOf(client.prepareProviderLink({ userId: '00000000-0000-4000-8000-000000000000', provider: 'google' }))).code).toBe('auth:unauthorized');
    expect((await errorOf(client.prepareProviderLink({ userId: 'not-a-uuid', provider: 'google' }))).code).toBe('auth:unauthorized');
  });
});

describe('the credential ledger', () => {
  const { CredentialKind } = identityV1;
  const PASSKEY = CredentialKind.CREDENTIAL_KIND_PASSKEY;
  const PROVIDER = CredentialKind.CREDENTIAL_KIND_PROVIDER;
  const TOTP = CredentialKind.CREDENTIAL_KIND_TOTP;
  const passkey = (userId: string, reference: string = randomUUID()) => ({ userId, kind: PASSKEY, reference, openedAccount: false });
  const provider = (userId: string, reference = 'google') => ({ userId, kind: PROVIDER, reference, openedAccount: false });
  const totp = (userId: string) => ({ userId, kind: TOTP, reference: '', openedAccount: false });
  /** What an owner holds of an account, as it settles it. */
  const holding = (userId: string, references: readonly string[], fields: Partial<identityV1.HeldCredential> = {}) => ({
    userId,
    credentials: references.map((reference) => ({ reference, addedAt: new Date(), openedAccount: false, ...fields })),
  });
  const ledgerOf = async (userId: string): Promise<string[]> => {
    const { rows } = await db.query<{ entry: string }>(
      `SELECT kind || ':' || reference || ':' || state AS entry FROM identity.credentials WHERE user_id = $1 ORDER BY kind, reference`,
      [userId],
    );
    return rows.map((row) => row.entry);
  };
  const userOf = async (userId: string) => (await client.getUser({ userId })).user!;
  const providerAccount = async () => (await client.createVerifiedUser({ handle: newAccount().handle, email: newAccount().email })).user!;

  it('holds the password from registration, drops it with a dropped password and holds it again when a reset sets one', async () => {
    const account = await registerVerified();
    expect(await ledgerOf(account.user.id)).toEqual(['password::active']);
    await client.prepareProviderLink({ userId: account.user.id, provider: 'google' });
    expect(await ledgerOf(account.user.id)).toEqual([]);
    await client.resetPassword({ token: await tokenFor(account.user.email, 'password_dropped'), newPassword: 'chosen by the owner' });
    expect(await ledgerOf(account.user.id)).toEqual(['password::active']);
    await client.changePassword({ userId: account.user.id, currentPassword: 'chosen by the owner', newPassword: 'changed, still one password' });
    expect(await ledgerOf(account.user.id)).toEqual(['password::active']);
  });

  it('holds a reserved credential as pending until its owner settles the account, which keeps what it holds and drops the rest', async () => {
    const user = await providerAccount();
    const [kept, failed] = [passkey(user.id), passkey(user.id)];
    await client.reserveCredential(kept);
    await client.reserveCredential(failed);
    expect(await ledgerOf(user.id)).toEqual([`passkey:${kept.reference}:pending`, `passkey:${failed.reference}:pending`].sort());
    // The owner stored one of them; the other's store failed.
    expect(await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [kept.reference])] })).toEqual({ takeBacks: [] });
    expect(await ledgerOf(user.id)).toEqual([`passkey:${kept.reference}:active`]);
    // What the owner holds and the ledger lacked is active at once.
    const unknown = randomUUID();
    await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [kept.reference, unknown])] });
    expect(await ledgerOf(user.id)).toEqual([`passkey:${kept.reference}:active`, `passkey:${unknown}:active`].sort());
    await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [])] });
    expect(await ledgerOf(user.id)).toEqual([]);
  });

  it('refuses to reserve the removal of the last active first factor, in the code of the unit that owns it, and changes nothing then', async () => {
    const user = await providerAccount();
    const only = passkey(user.id);
    await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [only.reference])] });
    // One being added is no way in yet.
    await client.reserveCredential(provider(user.id));
    expect((await errorOf(client.reserveCredentialRemoval(only))).code).toBe('passkey:last_login_method');
    expect(await ledgerOf(user.id)).toEqual([`passkey:${only.reference}:active`, 'provider:google:pending']);
    await client.settleCredentials({ kind: PROVIDER, accounts: [holding(user.id, ['google'])] });
    await client.reserveCredentialRemoval(only);
    // One being removed is no way in any more.
    expect((await errorOf(client.reserveCredentialRemoval(provider(user.id)))).code).toBe('oauth:last_login_method');
    // A second factor is never a way in: its removal is not counted.
    await client.reserveCredentialRemoval(totp(user.id));
    expect(await ledgerOf(user.id)).toEqual([`passkey:${only.reference}:removing`, 'provider:google:active', 'totp::removing']);
  });

  it('refuses the password, other kinds, malformed references and unknown accounts', async () => {
    const user = await providerAccount();
    const invalid = [
      { ...passkey(user.id), kind: CredentialKind.CREDENTIAL_KIND_PASSWORD, reference: '' },
      { ...passkey(user.id), kind: CredentialKind.CREDENTIAL_KIND_UNSPECIFIED, reference: '' },
      passkey(user.id, 'not-a-uuid'),
      provider(user.id, 'Google!'),
      { ...totp(user.id), reference: 'second' },
      passkey('nope'),
    ];
    for (const credential of invalid) {
      expect((await errorOf(client.reserveCredential(credential))).code).toBe('validation:invalid_input');
      expect((await errorOf(client.reserveCredentialRemoval(credential))).code).toBe('validation:invalid_input');
    }
    expect((await errorOf(client.reserveCredential(passkey(randomUUID())))).code).toBe('auth:unauthorized');
    expect((await errorOf(client.reserveCredentialRemoval(passkey(randomUUID())))).code).toBe('auth:unauthorized');
    expect(await ledgerOf(user.id)).toEqual([]);
  });

  it('settles only existing accounts, and refuses what no owner could hold', async () => {
    const user = await providerAccount();
    expect(await client.settleCredentials({ kind: PASSKEY, accounts: [holding(randomUUID(), [randomUUID()]), holding(user.id, [])] })).toEqual({
      takeBacks: [],
    });
    const reference = randomUUID();
    const invalid = [
      { kind: PASSKEY, accounts: [] },
      { kind: PASSKEY, accounts: Array.from({ length: 101 }, () => holding(randomUUID(), [])) },
      { kind: PASSKEY, accounts: [holding(user.id, []), holding(user.id.toUpperCase(), [])] },
      { kind: PASSKEY, accounts: [holding(user.id, [reference, reference])] },
      { kind: PASSKEY, accounts: [{ userId: user.id, credentials: [{ reference, openedAccount: false }] }] },
      { kind: TOTP, accounts: [holding(user.id, ['x'])] },
      { kind: CredentialKind.CREDENTIAL_KIND_PASSWORD, accounts: [holding(user.id, [''])] },
    ];
    for (const request of invalid) expect((await errorOf(client.settleCredentials(request))).code).toBe('validation:invalid_input');
  });

  it('answers with the account whether a second factor may be on, and whether one recent factor proves enough', async () => {
    const account = await registerVerified();
    const signedIn = async () => (await client.authenticatePassword({ email: account.user.email, password: account.password })).user!;
    expect(await signedIn()).toMatchObject({ secondFactorOff: true, singleFactorSuffices: true, passkeysCount: 0 });
    // TOTP being turned on, on, being turned off: possibly on all along.
    await client.reserveCredential(totp(account.user.id));
    expect(await signedIn()).toMatchObject({ secondFactorOff: false, singleFactorSuffices: false });
    await client.settleCredentials({ kind: TOTP, accounts: [holding(account.user.id, [''])] });
    expect(await userOf(account.user.id)).toMatchObject({ secondFactorOff: false, singleFactorSuffices: false });
    await client.reserveCredentialRemoval(totp(account.user.id));
    expect(await userOf(account.user.id)).toMatchObject({ secondFactorOff: false, singleFactorSuffices: false });
    await client.settleCredentials({ kind: TOTP, accounts: [holding(account.user.id, [])] });
    expect(await userOf(account.user.id)).toMatchObject({ secondFactorOff: true, singleFactorSuffices: true });

    // A passkey proves more than one factor, in any state, unless it is suspended; it is counted in any state.
    const [first, second] = [passkey(account.user.id), passkey(account.user.id)];
    await client.reserveCredential(first);
    expect(await userOf(account.user.id)).toMatchObject({ secondFactorOff: true, singleFactorSuffices: false, passkeysCount: 1 });
    await client.settleCredentials({ kind: PASSKEY, accounts: [holding(account.user.id, [first.reference, second.reference], { suspendedAt: new Date() })] });
    expect(await userOf(account.user.id)).toMatchObject({ secondFactorOff: true, singleFactorSuffices: true, passkeysCount: 2 });
    await client.settleCredentials({ kind: PASSKEY, accounts: [holding(account.user.id, [first.reference])] });
    await client.reserveCredentialRemoval(first);
    expect(await userOf(account.user.id)).toMatchObject({ singleFactorSuffices: false, passkeysCount: 1 });
  });

  it('takes back in a reset what was added in its window, all but the connection the account was created with, and tells the owners', async () => {
    const user = await providerAccount();
    const [old, recent, pending] = [randomUUID(), randomUUID(), randomUUID()];
    const longAgo = new Date(Date.now() - 100 * 3_600_000);
    await client.settleCredentials({
      kind: PASSKEY,
      accounts: [{ userId: user.id, credentials: [{ reference: old, addedAt: longAgo, openedAccount: false }, holding(user.id, [recent]).credentials[0]!] }],
    });
    await client.reserveCredential(passkey(user.id, pending));
    await client.settleCredentials({
      kind: PROVIDER,
      accounts: [{ userId: user.id, credentials: [...holding(user.id, ['google'], { openedAccount: true }).credentials, ...holding(user.id, ['github']).credentials] }],
    });
    // A reset of an account without a password sets its first one.
    await client.requestPasswordReset({ email: user.email });
    const reset = await client.resetPassword({ token: await tokenFor(user.email, 'reset_password'), newPassword: 'the owner is back' });
    expect(await ledgerOf(user.id)).toEqual(
      ['password::active', `passkey:${old}:active`, `passkey:${recent}:removing`, `passkey:${pending}:removing`, 'provider:github:removing', 'provider:google:active'].sort(),
    );
    // The owners hear which to remove while they hold them.
    const { takeBacks } = await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [old, recent, pending])] });
    expect(takeBacks).toEqual([recent, pending].sort().map((reference) => ({ userId: user.id, reference, resetId: reset.resetId })));
    expect(await client.settleCredentials({ kind: PASSKEY, accounts: [holding(user.id, [old])] })).toEqual({ takeBacks: [] });
    expect(await ledgerOf(user.id)).toContain(`passkey:${old}:active`);
    expect((await client.settleCredentials({ kind: PROVIDER, accounts: [holding(user.id, ['github', 'google'])] })).takeBacks).toEqual([
      { userId: user.id, reference: 'github', resetId: reset.resetId },
    ]);
  });

  it("holds a credential it learns of only after a reset to that reset's window", async () => {
    const account = await registerVerified();
    await client.requestPasswordReset({ email: account.user.email });
    const reset = await client.resetPassword({ token: await tokenFor(account.user.email, 'reset_password'), newPassword: 'reset before it knew' });
    // A passkey stored before the reset that the ledger had not heard of (its owner's settlement failed).
    const late = randomUUID();
    const { takeBacks } = await client.settleCredentials({
      kind: PASSKEY,
      accounts: [{ userId: account.user.id, credentials: [{ reference: late, addedAt: new Date(reset.resetAt!.getTime() - 60_000), openedAccount: false }] }],
    });
    expect(takeBacks).toEqual([{ userId: account.user.id, reference: late, resetId: reset.resetId }]);
    // One stored after the reset stays.
    const after = randomUUID();
    expect(await client.settleCredentials({ kind: PASSKEY, accounts: [holding(account.user.id, [late, after])] })).toMatchObject({
      takeBacks: [{ reference: late }],
    });
  });

  it('pages through the accounts whose credentials of a kind are unsettled since a while', async () => {
    const users = [await providerAccount(), await providerAccount(), await providerAccount()];
    for (const user of users) await client.reserveCredential(totp(user.id));
    await client.settleCredentials({ kind: TOTP, accounts: [holding(users[2]!.id, [''])] });
    const mine = (ids: readonly string[]) => ids.filter((id) => users.some((user) => user.id === id));
    const now = new Date(Date.now() + 1_000);
    const expected = [users[0]!.id, users[1]!.id].sort();
    const { userIds: firstPage } = await client.listUnsettledCredentials({ kind: TOTP, changedBefore: now, afterUserId: '', limit: 500 });
    expect(mine(firstPage)).toEqual(expected);
    const { userIds: rest } = await client.listUnsettledCredentials({ kind: TOTP, changedBefore: now, afterUserId: expected[0]!, limit: 500 });
    expect(mine(rest)).toEqual([expected[1]]);
    expect(mine((await client.listUnsettledCredentials({ kind: PASSKEY, changedBefore: now, afterUserId: '', limit: 500 })).userIds)).toEqual([]);
    expect(mine((await client.listUnsettledCredentials({ kind: TOTP, changedBefore: new Date(Date.now() - 60_000), afterUserId: '', limit: 500 })).userIds)).toEqual([]);
    for (const request of [{ limit: 0 }, { limit: 501 }, { afterUserId: 'nope' }, { kind: CredentialKind.CREDENTIAL_KIND_PASSWORD }]) {
      expect((await errorOf(client.listUnsettledCredentials({ kind: TOTP, afterUserId: '', limit: 10, ...request }))).code).toBe('validation:invalid_input');
    }
  });

  it('goes with the account', async () => {
    const account = await registerVerified();
    await client.reserveCredential(passkey(account.user.id));
    await client.deleteUser({ userId: account.user.id });
    expect(await ledgerOf(account.user.id)).toEqual([]);
  });
});

describe('sessions the gateway ends', () => {
  it('publishes session.revoked naming them, and refuses what is not a gateway session', async () => {
    const userId = '0b9f5a34-6a8f-4a43-9a1c-2d1f6f4f7b10';
    const sessionId = 'A'.repeat(22);
    await client.recordSessionsEnded({ userId, reason: 'logout', sessionIds: [sessionId], keptSessionId: '' });
    const event = await waitFor(
      () => otherJobs.find((job) => job.subject.endsWith('events.session.revoked') && JSON.stringify(job.payload).includes(sessionId)),
      { description: 'the session.revoked event' },
    );
    expect(event.payload).toMatchObject({ type: 'session.revoked', sessionRevoked: { userId, reason: 'logout', sessionIds: [sessionId] } });
    const invalid = await errorOf(client.recordSessionsEnded({ userId: 'nope', reason: 'bored', sessionIds: [], keptSessionId: 'x' }));
    expect(invalid.fields.map((field) => field.field)).toEqual(['user_id', 'reason', 'session_ids', 'kept_session_id']);
  });

  /** 22 characters of base64url, like the gateway's public session ids. */
  const sessionIdOf = (n: number) => `s${String(n).padStart(21, '0')}`;
  const endedOf = async (userId: string, sessionId = '') => (await client.getUser({ userId, sessionCheck: { sessionId } })).endedSessions;

  it('keeps them ended for a session check, until they would have expired', async () => {
    const account = await registerVerified();
    const userId = account.user.id;
    expect(await endedOf(userId)).toEqual({ sessionIds: [], truncated: false });
    // Only a session check reads them.
    expect((await client.getUser({ userId })).endedSessions).toBeUndefined();

    const expiresAt = new Date(Date.now() + 3_600_000);
    await client.recordSessionsEnded({ userId, reason: 'logout', sessionIds: [sessionIdOf(1)], keptSessionId: '', expiresAt });
    await client.recordSessionsEnded({ userId, reason: 'email_changed', sessionIds: [sessionIdOf(2), sessionIdOf(3)], keptSessionId: sessionIdOf(4), expiresAt });
    const ended = await endedOf(userId);
    expect(ended?.truncated).toBe(false);
    expect([...ended!.sessionIds].sort()).toEqual([sessionIdOf(1), sessionIdOf(2), sessionIdOf(3)]);
    // Another account's check does not see them.
    expect(await endedOf((await registerVerified()).user.id, sessionIdOf(1))).toEqual({ sessionIds: [], truncated: false });

    // A session past its expiry is not answered, and the sweep purges it.
    await client.recordSessionsEnded({ userId, reason: 'logout', sessionIds: [sessionIdOf(5)], keptSessionId: '', expiresAt: new Date(Date.now() - 1_000) });
    expect((await endedOf(userId, sessionIdOf(5)))?.sessionIds).not.toContain(sessionIdOf(5));
    expect(await deleteExpiredEndings(db)).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query<{ session_id: string }>('SELECT session_id FROM identity.ended_sessions WHERE user_id = $1 ORDER BY session_id', [userId]);
    expect(rows.map((row) => row.session_id)).toEqual([sessionIdOf(1), sessionIdOf(2), sessionIdOf(3)]);

    // Without an expiry (a gateway older than the field), kept for the default session lifetime.
    await client.recordSessionsEnded({ userId, reason: 'logout', sessionIds: [sessionIdOf(6)], keptSessionId: '' });
    const kept = await db.query<{ days: number }>(
      `SELECT extract(epoch FROM keep_until - now()) / 86400 AS days FROM identity.ended_sessions WHERE user_id = $1 AND session_id = $2`,
      [userId, sessionIdOf(6)],
    );
    expect(Number(kept.rows[0]?.days)).toBeCloseTo(30, 1);

    // They go with the account.
    await client.deleteUser({ userId });
    expect((await db.query('SELECT FROM identity.ended_sessions WHERE user_id = $1', [userId])).rowCount).toBe(0);
  });

  it('lists the most recent 100, says when there are more, and answers an older one asked about by its id', async () => {
    const { user } = await registerVerified();
    const expiresAt = new Date(Date.now() + 3_600_000);
    // The oldest first, each in a statement of its own, so that their ending times are ordered.
    await client.recordSessionsEnded({ userId: user.id, reason: 'session_limit', sessionIds: [sessionIdOf(0)], keptSessionId: '', expiresAt });
    await client.recordSessionsEnded({
      userId: user.id,
      reason: 'platform',
      sessionIds: Array.from({ length: 100 }, (_, n) => sessionIdOf(n + 1)),
      keptSessionId: '',
      expiresAt,
    });
    const listed = await endedOf(user.id);
    expect(listed?.truncated).toBe(true);
    expect(listed?.sessionIds).toHaveLength(100);
    expect(listed?.sessionIds).not.toContain(sessionIdOf(0));
    const checked = await endedOf(user.id, sessionIdOf(0));
    expect(checked?.sessionIds).toHaveLength(101);
    expect(checked?.sessionIds).toContain(sessionIdOf(0));
    expect((await endedOf(user.id, sessionIdOf(999)))?.sessionIds).toHaveLength(100);
  });
});

describe('purging accounts never verified', () => {
  it('deletes only unverified accounts registered before the cut-off, freeing their email and handle', async () => {
    const old = newAccount();
    const { user: stale } = await client.registerUser(old);
    const { user: fresh } = await client.registerUser(newAccount());
    const verified = await registerVerified();
    await db.query(`UPDATE users SET created_at = now() - interval '4 days' WHERE id = ANY($1)`, [[stale!.id, verified.user.id]]);

    const registeredBefore = new Date(Date.now() - 72 * 3_600_000);
    expect(await client.purgeUnverifiedUsers({ registeredBefore, limit: 1000 })).toEqual({ deletedUsers: 1 });
    const left = await db.query<{ id: string }>('SELECT id FROM users WHERE id = ANY($1)', [[stale!.id, fresh!.id, verified.user.id]]);
    expect(left.rows.map((row) => row.id).sort()).toEqual([fresh!.id, verified.user.id].sort());
    expect(await client.purgeUnverifiedUsers({ registeredBefore, limit: 1000 })).toEqual({ deletedUsers: 0 });
    // Its cleanup job was queued like that of any deletion.
    await waitFor(() => (deletionJobs.includes(stale!.id) ? true : undefined), { description: 'the user.deleted job' });
    // The address and the handle may be registered again, by their owner.
    expect((await client.registerUser(old)).user?.email).toBe(old.email.toLowerCase());
    expect((await errorOf(client.purgeUnverifiedUsers({ registeredBefore, limit: 0 }))).fields[0]?.field).toBe('limit');
  });
});

describe('lookups', () => {
  it('answers auth:unauthorized for an unknown or malformed user id', async () => {
    expect((await errorOf(client.getUser({ userId: '0190b6c4-0000-7000-8000-000000000000' }))).code).toBe('auth:unauthorized');
    expect((await errorOf(client.getUser({ userId: 'not-a-uuid' }))).code).toBe('auth:unauthorized');
  });
});

describe('administration (admin.v1)', () => {
  /** A session as the gateway stores it (packages/session-keys): its record and its entry in the user's index. */
  async function storeSession(userId: string, epoch: number): Promise<string> {
    const tokenHash = `hash-${Math.random().toString(36).slice(2)}`;
    await redis.set(sessionKey(`${prefix}:`, tokenHash), JSON.stringify({ u: userId, p: tokenHash, k: epoch }));
    await redis.hset(userSessionsKey(`${prefix}:`, userId), tokenHash, tokenHash);
    return tokenHash;
  }
  const sessionExists = async (tokenHash: string) => (await redis.exists(sessionKey(`${prefix}:`, tokenHash))) === 1;

  it('finds an account by id, email or handle, any case, and says user:not_found otherwise', async () => {
    const { user, email, handle } = await registerVerified();
    for (const key of [{ id: user.id }, { email: email.toUpperCase() }, { handle: handle.toUpperCase() }]) {
      expect((await admin.findUser(key)).user).toMatchObject({ id: user.id, email: user.email, hasPassword: true, disabledAt: undefined });
    }
    expect((await errorOf(admin.findUser({ email: 'nobody@example.com' }))).code).toBe('user:not_found');
    expect((await errorOf(admin.findUser({ id: 'not-a-uuid' }))).code).toBe('validation:invalid_input');
    expect((await errorOf(admin.findUser({}))).code).toBe('validation:invalid_input');
  });

  it('pages through every account newest first, each once, while new ones sign up', async () => {
    for (let i = 0; i < 5; i += 1) await client.registerUser(newAccount());
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await admin.listUsers({ pageSize: 3, pageToken });
      seen.push(...page.users.map((user) => user.id));
      pageToken = page.nextPageToken;
      pages += 1;
      // A sign-up during the walk lands before its start and moves nothing.
      if (pages === 1) await client.registerUser(newAccount());
    } while (pageToken !== '');
    const { rows } = await db.query<{ id: string }>('SELECT id FROM users ORDER BY created_at DESC, id DESC');
    expect(seen).toEqual(rows.map((row) => row.id).slice(1));

    // Accounts created within one millisecond: the page boundary falls between them.
    await db.query(
      `UPDATE users SET created_at = '2000-01-01T00:00:00.000001Z'::timestamptz + (n * interval '1 microsecond')
       FROM (SELECT id AS row_id, row_number() OVER (ORDER BY id) AS n FROM users WHERE id = ANY($1::uuid[])) numbered WHERE id = row_id`,
      [seen.slice(0, 5)],
    );
    const walked: string[] = [];
    do {
      const page = await admin.listUsers({ pageSize: 2, pageToken });
      walked.push(...page.users.map((user) => user.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    const { rows: now } = await db.query<{ id: string }>('SELECT id FROM users ORDER BY created_at DESC, id DESC');
    expect(walked).toEqual(now.map((row) => row.id));
    expect((await errorOf(admin.listUsers({ pageSize: 3, pageToken: 'forged' }))).fields[0]?.field).toBe('page_token');
    expect((await errorOf(admin.listUsers({ pageSize: 101, pageToken: '' }))).fields[0]?.field).toBe('page_size');
  });

  it('disables an account: no sign-in, its sessions end at once and for good; enabling lets it sign in again', async () => {
    const account = await registerVerified();
    const session = await storeSession(account.user.id, account.user.sessionEpoch);
    const { user } = await admin.disableUser({ userId: account.user.id, reason: 'chargeback fraud' });
    expect(user).toMatchObject({ disabledAt: expect.any(Date), disabledReason: 'chargeback fraud' });
    expect(await sessionExists(session)).toBe(false);
    // The worker's revocation job is queued too, for a Redis that failed right then.
    await waitFor(() => otherJobs.find((job) => job.subject.endsWith(jobSubjects.sessionsRevoked) && (job.payload as { user_id: string }).user_id === account.user.id), {
      description: 'the sessions.revoked job',
    });
    expect((await errorOf(client.authenticatePassword({ email: account.email, password }))).code).toBe('auth:account_disabled');
    expect((await errorOf(client.authenticatePassword({ email: account.email, password: 'not it at all' }))).code).toBe('auth:invalid_credentials');
    expect((await client.getUser({ userId: account.user.id })).user?.disabledAt).toEqual(user!.disabledAt);

    expect((await admin.enableUser({ userId: account.user.id })).user).toMatchObject({ disabledAt: undefined, disabledReason: '' });
    expect((await client.authenticatePassword({ email: account.email, password })).user?.id).toBe(account.user.id);
    expect((await errorOf(admin.disableUser({ userId: account.user.id, reason: 'x'.repeat(501) }))).fields[0]?.field).toBe('reason');
    expect((await errorOf(admin.disableUser({ userId: '0190b6c4-0000-7000-8000-000000000000', reason: '' }))).code).toBe('user:not_found');
  });

  it('ends every session, mails a reset link and deletes an account with the cascade of self-deletion, auditing each with its caller', async () => {
    const account = await registerVerified();
    const session = await storeSession(account.user.id, account.user.sessionEpoch);
    await admin.revokeAllSessions({ userId: account.user.id });
    expect(await sessionExists(session)).toBe(false);
    await admin.sendPasswordReset({ userId: account.user.id });
    const token = await tokenFor(account.user.email, 'reset_password');
    await client.resetPassword({ token, newPassword: 'a brand new passphrase' });
    const later = await storeSession(account.user.id, Number.MAX_SAFE_INTEGER - 1);
    await admin.deleteUser({ userId: account.user.id });
    expect(await sessionExists(later)).toBe(false);
    await waitFor(() => (deletionJobs.includes(account.user.id) ? true : undefined), { description: 'the user.deleted job' });
    expect((await errorOf(admin.findUser({ id: account.user.id }))).code).toBe('user:not_found');

    const { entries } = await admin.listAuditLog({ userId: account.user.id, pageSize: 0, pageToken: '' });
    expect(entries.map((entry) => entry.action)).toEqual(['delete_user', 'send_password_reset', 'revoke_all_sessions']);
    // No certificate over plaintext: the log says so rather than naming a program; the person is named either way.
    expect(entries.every((entry) => entry.caller === 'plaintext' && entry.operator === OPERATOR && entry.userId === account.user.id)).toBe(true);
    // That read is in the log too; pages show each entry once, the reads before them included.
    const first = await admin.listAuditLog({ userId: account.user.id, pageSize: 2, pageToken: '' });
    const rest = await admin.listAuditLog({ userId: account.user.id, pageSize: 2, pageToken: first.nextPageToken });
    const walked = [...first.entries, ...rest.entries];
    expect(walked.map((entry) => entry.action)).toEqual(['list_audit_log', 'delete_user', 'send_password_reset', 'revoke_all_sessions']);
    expect(walked.slice(1).map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    expect(rest.nextPageToken).toBe('');
  });

  it('refuses a call that names no person, or names one badly, before it reads or changes anything', async () => {
    const { user } = await registerVerified();
    const address = `127.0.0.1:${String(service.readyFields?.admin_grpc_port)}`;
    const anonymous = createTestServiceClient(adminV1.AdminServiceService, address);
    const careless = createTestServiceClient(adminV1.AdminServiceService, address, undefined, { operator: 'ada\nroot' });
    const verbose = createTestServiceClient(adminV1.AdminServiceService, address, undefined, { operator: 'x'.repeat(129) });
    try {
      for (const client of [anonymous, careless, verbose]) {
        for (const call of [
          client.findUser({ id: user.id }),
          client.listUsers({ pageSize: 1, pageToken: '' }),
          client.disableUser({ userId: user.id, reason: 'nobody asked' }),
          client.deleteUser({ userId: user.id }),
          client.listAuditLog({ userId: user.id, pageSize: 1, pageToken: '' }),
        ]) {
          const error = await errorOf(call);
          expect(error.code).toBe('validation:invalid_input');
          expect(error.fields[0]?.field).toBe('latchkey-operator');
        }
      }
    } finally {
      for (const client of [anonymous, careless, verbose]) client.close();
    }
    expect((await client.getUser({ userId: user.id })).user?.disabledAt).toBeUndefined();
    const { rows } = await db.query('SELECT 1 FROM admin_audit_log WHERE user_id = $1', [user.id]);
    expect(rows).toEqual([]);
  });

  it('records every read that shows an account: found, listed, or its audit read; a lookup that finds nothing is not kept', async () => {
    const { user, email } = await registerVerified();
    await admin.findUser({ email });
    const page = await admin.listUsers({ pageSize: 3, pageToken: '' });
    expect(page.users.map((shown) => shown.id)).toContain(user.id);
    await admin.listAuditLog({ userId: '', pageSize: 1, pageToken: '' });
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin_audit_log')).rows[0]!.n;
    const before = await count();
    expect((await errorOf(admin.findUser({ email: `nobody-${Date.now()}@example.com` }))).code).toBe('user:not_found');
    expect(await count()).toBe(before);

    const { entries } = await admin.listAuditLog({ userId: user.id, pageSize: 0, pageToken: '' });
    expect(entries.map((entry) => [entry.action, entry.operator, entry.caller])).toEqual([
      ['list_users', OPERATOR, 'plaintext'],
      ['find_user', OPERATOR, 'plaintext'],
    ]);
    // One entry per account a page showed, and one for the read of every account's audit.
    const everyone = await admin.listAuditLog({ userId: '', pageSize: 100, pageToken: '' });
    const listed = everyone.entries.filter((entry) => entry.action === 'list_users' && entry.at?.getTime() === entries[0]?.at?.getTime());
    expect(listed.map((entry) => entry.userId).sort()).toEqual(page.users.map((shown) => shown.id).sort());
    expect(everyone.entries).toContainEqual(expect.objectContaining({ action: 'list_audit_log', userId: '', operator: OPERATOR }));
  });

  it('keeps the audit log append-only for the unit’s own database role: UPDATE, DELETE and TRUNCATE each fail', async () => {
    const { user } = await registerVerified();
    await admin.disableUser({ userId: user.id, reason: 'evidence' });
    const unit = new pg.Client({ connectionString: database.url, options: '-c search_path=identity' });
    await unit.connect();
    try {
      for (const statement of [
        `UPDATE admin_audit_log SET operator = 'someone else' WHERE user_id = '${user.id}'`,
        `DELETE FROM admin_audit_log WHERE user_id = '${user.id}'`,
        // A statement that matches no row is refused too: nothing to hide behind.
        'DELETE FROM admin_audit_log WHERE false',
        'TRUNCATE admin_audit_log',
      ]) {
        await expect(unit.query(statement)).rejects.toMatchObject({ code: '42501', message: expect.stringMatching(/append-only/) });
      }
    } finally {
      await unit.end();
    }
    const { rows } = await db.query<{ operator: string; reason: string }>('SELECT operator, reason FROM admin_audit_log WHERE user_id = $1', [user.id]);
    expect(rows).toEqual([{ operator: OPERATOR, reason: 'evidence' }]);
  });
});
