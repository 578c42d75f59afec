import { createHash, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { connect, AckPolicy, type NatsConnection, type JsMsg } from 'nats';
import pg from 'pg';
import { identityV1, oauthV1 } from '@latchkey/contracts';
import { sweepLedger } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { jobSubjects, mailJobSchema, type MailJob } from '@latchkey/jobs-contract';
import { ensureStreams, topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger, type Logger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  waitFor,
  type TestDatabase,
  createTestServiceClient,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../../identity/src/config';
import { startIdentityService } from '../../../identity/src/identity-service';
import { migrate as migrateIdentity } from '../../../identity/src/migrate';
import { loadOAuthConfig } from '../../src/config';
import { migrate } from '../../src/migrate';
import { startOAuthService } from '../../src/oauth-service';
import { connectionLedger } from '../../src/connection-ledger';
import {
  followAuthorization,
  startGitHubProvider,
  startOidcProvider,
  type GitHubAccount,
  type OidcClaims,
  type ProviderFixture,
} from '../provider-fixtures';

const { Provider, AuthorizationPurpose } = oauthV1;
const { CredentialKind } = identityV1;
type OAuthClient = TestServiceClient<typeof oauthV1.OAuthServiceService>;
type IdentityClient = TestServiceClient<typeof identityV1.IdentityServiceService>;
type ProviderName = 'google' | 'github';

const PROVIDER_TIMEOUT_MS = 800;
const PASSWORD = 'correct horse battery';
const GOOGLE = { clientId: 'google-test-client', clientSecret: 'google-test-secret-value', redirectUri: 'http://localhost:3000/auth/google' };
const GITHUB = { clientId: 'github-test-client', clientSecret: 'github-test-secret-value', redirectUri: 'http://localhost:3000/auth/github' };
const enumOf: Record<ProviderName, oauthV1.Provider> = { google: Provider.PROVIDER_GOOGLE, github: Provider.PROVIDER_GITHUB };
const otherThan = (provider: ProviderName): ProviderName => (provider === 'google' ? 'github' : 'google');

let database: TestDatabase;
let prefix: string;
let redisPrefix: string;
let oidc: ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>;
let github: ProviderFixture<GitHubAccount>;
let identityService: Running;
let identity: IdentityClient;
let identityAddress: string;
let service: Running;
let oauth: OAuthClient;
let redis: Redis;
let db: pg.Pool;
let nats: NatsConnection;
let subscription: { stop(): void } | undefined;
const jobs: MailJob[] = [];

// --- Every log line of the services under test, and every secret the test saw: none may be logged.

const logLines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
const serviceLogger: Logger = createLogger({ service: 'oauth', level: 'debug', destination: capture });
const sensitive = new Set<string>([GOOGLE.clientSecret, GITHUB.clientSecret]);
const remember = (value: string): string => {
  sensitive.add(value);
  return value;
};

function oauthEnvironment(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: redisPrefix,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    IDENTITY_GRPC_ADDRESS: identityAddress,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
    GOOGLE_CLIENT_ID: GOOGLE.clientId,
    GOOGLE_CLIENT_SECRET: GOOGLE.clientSecret,
    GOOGLE_REDIRECT_URI: GOOGLE.redirectUri,
    GOOGLE_ISSUER: oidc.url,
    GITHUB_CLIENT_ID: GITHUB.clientId,
    GITHUB_CLIENT_SECRET: GITHUB.clientSecret,
    GITHUB_REDIRECT_URI: GITHUB.redirectUri,
    GITHUB_AUTHORIZATION_URL: `${github.url}/login/oauth/authorize`,
    GITHUB_TOKEN_URL: `${github.url}/login/oauth/access_token`,
    GITHUB_API_URL: github.url,
    OAUTH_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    ...overrides,
  };
}

function clientFor(running: Running): OAuthClient {
  return createTestServiceClient(oauthV1.OAuthServiceService, `127.0.0.1:${String(running.readyFields?.grpc_port)}`);
}

/** Runs `work` against a second instance of the service with other settings. */
async function withService(overrides: Record<string, string | undefined>, work: (client: OAuthClient) => Promise<void>) {
  const running = await startOAuthService(loadOAuthConfig(oauthEnvironment(overrides)), serviceLogger);
  const client = clientFor(running);
  try {
    await work(client);
  } finally {
    client.close();
    await running.stop();
  }
}

beforeAll(async () => {
  database = await createTestDatabase('oauth');
  prefix = uniqueName('oauth');
  redisPrefix = `${uniqueName('oauth')}:`;
  [oidc, github] = await Promise.all([startOidcProvider(), startGitHubProvider(GITHUB.clientId, GITHUB.clientSecret)]);

  const identityConfig = loadIdentityConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    ADMIN_GRPC_PORT: '0',
    METRICS_PORT: '0',
  });
  const silent = createLogger({ service: 'identity', level: 'silent' });
  await migrateIdentity(identityConfig, silent);
  await migrate({ DATABASE_URL: database.url }, silent);
  identityService = await startIdentityService(identityConfig, silent);
  identityAddress = `127.0.0.1:${String(identityService.readyFields?.grpc_port)}`;
  identity = createTestServiceClient(identityV1.IdentityServiceService, identityAddress);

  nats = await connect({ servers: testNatsUrl() });
  const names = topology(prefix);
  // The jobs worker owns the streams; here the test stands in for it.
  await ensureStreams(await nats.jetstreamManager(), prefix);
  service = await startOAuthService(loadOAuthConfig(oauthEnvironment()), serviceLogger);
  oauth = clientFor(service);

  const jsm = await nats.jetstreamManager();
  await jsm.consumers.add(names.jobsStream, { durable_name: 'test', ack_policy: AckPolicy.Explicit });
  const messages = await (await nats.jetstream().consumers.get(names.jobsStream, 'test')).consume();
  subscription = messages;
  void (async () => {
    for await (const message of messages) record(message);
  })();

  redis = new Redis(testRedisUrl());
  db = new pg.Pool({ connectionString: database.url, options: '-c search_path=oauth' });
}, 60_000);

/** Keeps the mails; identity's other jobs (a dropped password's session revocation) pass by. */
function record(message: JsMsg): void {
  if (message.subject.endsWith(jobSubjects.sendMail)) jobs.push(mailJobSchema.parse(message.json()));
  message.ack();
}

afterAll(async () => {
  subscription?.stop();
  oauth?.close();
  identity?.close();
  await service?.stop();
  await identityService?.stop();
  await Promise.all([oidc?.stop(), github?.stop()]);
  const jsm = await nats?.jetstreamManager();
  const names = topology(prefix);
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nats?.close();
  const keys = (await redis?.keys(`${redisPrefix}*`)) ?? [];
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  await db?.end();
  await database?.drop();
});

// --- Helpers

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

const codeOf = async (promise: Promise<unknown>): Promise<string> => (await errorOf(promise)).code;

let counter = 0;
function unique(label: string): string {
  counter += 1;
  return `${label}${counter}${Date.now().toString(36)}`;
}
const newEmail = (): string => `${unique('person')}@example.com`;
const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Someone at a provider: what the fixture will say about them, and their id there. */
interface TestIdentity {
  readonly provider: ProviderName;
  readonly providerUserId: string;
  readonly email: string;
  readonly login: { idToken: OidcClaims; userinfo?: OidcClaims } | GitHubAccount;
}

function googleIdentity(options: { email?: string; verified?: boolean; claims?: Partial<OidcClaims>; userinfo?: OidcClaims } = {}) {
  const email = options.email ?? newEmail();
  const idToken: OidcClaims = {
    sub: unique('1098'),
    email,
    email_verified: options.verified ?? true,
    name: 'Ada Lovelace',
    picture: 'https://lh3.example.com/ada.png',
    ...options.claims,
  };
  return { provider: 'google', providerUserId: idToken.sub, email, login: { idToken, userinfo: options.userinfo } } satisfies TestIdentity;
}

function githubIdentity(options: { email?: string; verified?: boolean; emails?: GitHubAccount['emails'] } = {}) {
  const email = options.email ?? newEmail();
  counter += 1;
  const id = 5_000_000 + counter;
  const account: GitHubAccount = {
    user: { id, login: unique('octo'), name: 'Octo Cat', email: null, avatar_url: `https://avatars.example.com/u/${id}` },
    emails: options.emails ?? [{ email, primary: true, verified: options.verified ?? true, visibility: 'private' }],
  };
  return { provider: 'github', providerUserId: String(id), email, login: account } satisfies TestIdentity;
}

function newIdentity(provider: ProviderName, options: { email?: string; verified?: boolean } = {}): TestIdentity {
  return provider === 'google' ? googleIdentity(options) : githubIdentity(options);
}

/** The hash of the secret the gateway leaves in the user agent (its `oauth_binding` cookie). */
const BROWSER = 'hash-of-the-browser-binding-secret';

async function startAuthorization(provider: ProviderName, purpose = AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN, userId = '', client = oauth) {
  const started = await client.createAuthorization({ provider: enumOf[provider], purpose, userId, browserBinding: BROWSER });
  remember(started.state);
  return started;
}

/** The user consents at the provider as `who`; answers what the provider sent back. */
async function consent(who: TestIdentity, purpose = AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN, userId = '', client = oauth) {
  if (who.provider === 'google') await oidc.nextLogin(who.login as { idToken: OidcClaims });
  else await github.nextLogin(who.login as GitHubAccount);
  const started = await startAuthorization(who.provider, purpose, userId, client);
  const grant = await followAuthorization(started.authorizationUrl);
  expect(grant.state).toBe(started.state);
  remember(grant.code);
  return { ...grant, browserBinding: BROWSER };
}

async function login(who: TestIdentity, client = oauth): Promise<oauthV1.CompleteLoginResponse> {
  const grant = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN, '', client);
  const result = await client.completeLogin({ provider: enumOf[who.provider], ...grant });
  if (result.pendingSignup) remember(result.pendingSignup.pendingToken);
  return result;
}

async function link(who: TestIdentity, userId: string): Promise<oauthV1.LinkProviderResponse> {
  const grant = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK, userId);
  return oauth.linkProvider({ userId, provider: enumOf[who.provider], ...grant });
}

/** Signs a new user up through the provider: an account without a password, with one connection. */
async function signUp(who: TestIdentity): Promise<string> {
  const { pendingSignup } = await login(who);
  const { userId } = await oauth.completeSignup({ pendingToken: pendingSignup!.pendingToken, handle: unique('u_') });
  return userId;
}

async function registerAccount(options: { email?: string; verified?: boolean } = {}): Promise<identityV1.User> {
  const email = options.email ?? newEmail();
  const { user } = await identity.registerUser({ handle: unique('u_'), email, password: PASSWORD });
  if (options.verified ?? true) {
    const job = await mailTo(email, 'verify_email');
    if (!('token' in job)) throw new Error('no token');
    return (await identity.verifyEmail({ token: job.token })).user!;
  }
  return user!;
}

function mailTo(to: string, template: MailJob['template'], match: (job: MailJob) => boolean = () => true): Promise<MailJob> {
  return waitFor(() => [...jobs].reverse().find((job) => job.to === to && job.template === template && match(job)), {
    description: `${template} mail to ${to}`,
  });
}

const notice = (to: string, kind: 'oauth_linked' | 'oauth_unlinked', provider: ProviderName) =>
  mailTo(to, 'security_notice', (job) => 'notice' in job && job.notice === kind && job.provider === provider);

/** The account's credentials as identity's ledger holds them: `kind:reference:state`, in that order. */
async function ledgerOf(userId: string): Promise<string[]> {
  const { rows } = await db.query<{ entry: string }>(
    `SELECT kind || ':' || reference || ':' || state AS entry FROM identity.credentials WHERE user_id = $1 ORDER BY kind, reference`,
    [userId],
  );
  return rows.map((row) => row.entry);
}

/** Whether the account waits in this unit's queue for its settlement with the ledger. */
async function unsettled(userId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM oauth.unsettled_accounts WHERE user_id = $1', [userId]);
  return rowCount === 1;
}

/** Resets the account's password through identity, as its owner would from the mail. */
async function resetPasswordOf(userId: string): Promise<identityV1.ResetPasswordResponse> {
  const { user } = await identity.getUser({ userId });
  const mailed = jobs.length;
  await identity.requestPasswordReset({ email: user!.email });
  const job = await waitFor(() => jobs.slice(mailed).find((candidate) => candidate.to === user!.email && candidate.template === 'reset_password'), {
    description: 'the reset mail',
  });
  if (!('token' in job)) throw new Error('no token');
  return identity.resetPassword({ token: job.token, newPassword: 'the owner is back' });
}

async function connectionRows(who: TestIdentity): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM user_oauth_connections WHERE provider = $1 AND provider_user_id = $2',
    [who.provider, who.providerUserId],
  );
  return rows[0]!.n;
}

async function accountWithEmail(email: string): Promise<identityV1.User | undefined> {
  return (await identity.getUserByEmail({ email })).user;
}

// --- Tests

describe('providers and authorization requests', () => {
  it('lists the configured providers', async () => {
    expect((await oauth.listProviders({})).providers).toEqual([Provider.PROVIDER_GOOGLE, Provider.PROVIDER_GITHUB]);
  });

  it('answers provider_not_found for reserved and unspecified providers', async () => {
    const login = AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN;
    for (const provider of [Provider.PROVIDER_MICROSOFT, Provider.PROVIDER_APPLE, Provider.PROVIDER_GITLAB, Provider.PROVIDER_UNSPECIFIED]) {
      expect(await codeOf(oauth.createAuthorization({ provider, purpose: login, userId: '', browserBinding: BROWSER }))).toBe('oauth:provider_not_found');
      expect(await codeOf(oauth.completeLogin({ provider, code: 'c', state: 's', browserBinding: BROWSER }))).toBe('oauth:provider_not_found');
    }
    const userId = (await registerAccount()).id;
    expect(await codeOf(oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GITLAB }))).toBe('oauth:provider_not_found');
  });

  it('asks Google with PKCE (S256) and a nonce, GitHub with PKCE, each with a 256-bit state', async () => {
    const google = new URL((await startAuthorization('google')).authorizationUrl);
    expect(`${google.origin}${google.pathname}`).toBe(`${oidc.url}/authorize`);
    expect(Object.fromEntries(google.searchParams)).toMatchObject({
      client_id: GOOGLE.clientId,
      redirect_uri: GOOGLE.redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(google.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(google.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const started = await startAuthorization('github');
    const githubUrl = new URL(started.authorizationUrl);
    expect(`${githubUrl.origin}${githubUrl.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(Object.fromEntries(githubUrl.searchParams)).toMatchObject({
      client_id: GITHUB.clientId,
      redirect_uri: GITHUB.redirectUri,
      scope: 'read:user user:email',
      code_challenge_method: 'S256',
      state: started.state,
    });
    expect(githubUrl.searchParams.get('client_secret')).toBeNull();
    expect(Buffer.from(started.state, 'base64url')).toHaveLength(32);
    expect(started.expiresAt!.getTime() - Date.now()).toBeGreaterThan(590_000);
    // Only a hash of the state names its record.
    expect(await redis.exists(`${redisPrefix}oauth:state:${sha256(started.state)}`)).toBe(1);
    expect(await redis.keys(`*${started.state}*`)).toEqual([]);
  });

  it('needs a purpose, a user for a link or a re-authentication and none for a login', async () => {
    const provider = Provider.PROVIDER_GOOGLE;
    const userId = (await registerAccount()).id;
    const { AUTHORIZATION_PURPOSE_UNSPECIFIED, AUTHORIZATION_PURPOSE_LINK, AUTHORIZATION_PURPOSE_LOGIN, AUTHORIZATION_PURPOSE_REAUTHENTICATE } =
      AuthorizationPurpose;
    expect((await errorOf(oauth.createAuthorization({ provider, purpose: AUTHORIZATION_PURPOSE_UNSPECIFIED, userId: '', browserBinding: BROWSER }))).fields).toEqual([
      { field: 'purpose', message: 'must be login, link or reauthenticate' },
    ]);
    for (const purpose of [AUTHORIZATION_PURPOSE_LINK, AUTHORIZATION_PURPOSE_REAUTHENTICATE]) {
      expect(await codeOf(oauth.createAuthorization({ provider, purpose, userId: '', browserBinding: BROWSER }))).toBe('validation:invalid_input');
    }
    expect(await codeOf(oauth.createAuthorization({ provider, purpose: AUTHORIZATION_PURPOSE_LOGIN, userId, browserBinding: BROWSER }))).toBe(
      'validation:invalid_input',
    );
  });
});

describe.each(['google', 'github'] as const)('user resolution with %s', (provider) => {
  it('signs a new user up: pending signup, a taken handle retried, then a verified account without a password', async () => {
    const who = newIdentity(provider);
    const { pendingSignup, signedIn } = await login(who);
    expect(signedIn).toBeUndefined();
    expect(pendingSignup).toMatchObject({ email: who.email, name: provider === 'google' ? 'Ada Lovelace' : 'Octo Cat' });
    expect(pendingSignup!.avatarUrl).toMatch(/^https:\/\//);
    expect(Buffer.from(pendingSignup!.pendingToken, 'base64url')).toHaveLength(32);
    expect(pendingSignup!.expiresAt!.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(await accountWithEmail(who.email)).toBeUndefined();

    const taken = await registerAccount();
    const pendingToken = pendingSignup!.pendingToken;
    expect(await codeOf(oauth.completeSignup({ pendingToken, handle: taken.handle.toUpperCase() }))).toBe('user:handle_taken');
    expect(await codeOf(oauth.completeSignup({ pendingToken, handle: 'no!' }))).toBe('validation:invalid_input');
    const handle = unique('New_');
    const signedUp = await oauth.completeSignup({ pendingToken, handle });
    const { userId } = signedUp;
    expect(await codeOf(oauth.completeSignup({ pendingToken, handle: unique('again_') }))).toBe('oauth:pending_signup_invalid');

    const { user } = await identity.getUser({ userId });
    // The answer carries the account identity created, so that the caller needs no GetUser.
    expect(signedUp.user).toEqual(user);
    expect(user).toMatchObject({ id: userId, handle: handle.toLowerCase(), email: who.email, hasPassword: false });
    expect(user!.emailVerifiedAt).toBeInstanceOf(Date);
    const { connections } = await oauth.listConnections({ userId });
    expect(connections).toEqual([
      { provider: enumOf[provider], providerUserId: who.providerUserId, email: who.email, linkedAt: expect.any(Date) },
    ]);
    expect((await login(who)).signedIn).toEqual({ userId, linkedNow: false, user, passwordDropped: false });
  });

  it('links an existing verified account by its email, signs it in and mails a notice', async () => {
    const account = await registerAccount();
    const who = newIdentity(provider, { email: account.email.toUpperCase() });
    // Its password was chosen before the address was verified, perhaps by a squatter: it goes.
    expect((await login(who)).signedIn).toMatchObject({
      userId: account.id,
      linkedNow: true,
      passwordDropped: true,
      user: { id: account.id, hasPassword: false, sessionEpoch: account.sessionEpoch + 1 },
    });
    expect(await notice(account.email, 'oauth_linked', provider)).toMatchObject({ handle: account.handle });
    expect(await mailTo(account.email, 'password_dropped')).toMatchObject({ provider });
    expect((await login(who)).signedIn).toMatchObject({ userId: account.id, linkedNow: false, passwordDropped: false });
    expect((await oauth.listConnections({ userId: account.id })).connections).toHaveLength(1);
  });

  it('keeps a password its owner set after verifying the address', async () => {
    const account = await registerAccount();
    await identity.changePassword({ userId: account.id, currentPassword: PASSWORD, newPassword: 'the owner chose this' });
    const who = newIdentity(provider, { email: account.email });
    expect((await login(who)).signedIn).toMatchObject({ userId: account.id, linkedNow: true, passwordDropped: false, user: { hasPassword: true } });
  });

  it('counts a connection to a deleted account as absent until the cleanup removes it', async () => {
    const who = newIdentity(provider);
    const userId = await signUp(who);
    await identity.deleteUser({ userId });
    const again = await login(who);
    expect(again.pendingSignup).toMatchObject({ email: who.email });
    expect(await oauth.listConnections({ userId })).toEqual({ connections: [] });
  });

  it('refuses an email the provider does not vouch for, creating nothing', async () => {
    const stranger = newIdentity(provider, { verified: false });
    expect(await codeOf(login(stranger))).toBe('oauth:email_not_verified');
    expect(await accountWithEmail(stranger.email)).toBeUndefined();
    expect(await connectionRows(stranger)).toBe(0);

    const account = await registerAccount();
    const impostor = newIdentity(provider, { email: account.email, verified: false });
    expect(await codeOf(login(impostor))).toBe('oauth:email_not_verified');
    expect(await connectionRows(impostor)).toBe(0);
  });

  it('does not link automatically to an account whose own email is unverified', async () => {
    const account = await registerAccount({ verified: false });
    const who = newIdentity(provider, { email: account.email });
    expect(await codeOf(login(who))).toBe('oauth:email_not_verified');
    expect(await connectionRows(who)).toBe(0);
  });

  it('refuses a second identity of the provider for the same account', async () => {
    const account = await registerAccount();
    await login(newIdentity(provider, { email: account.email }));
    const second = newIdentity(provider, { email: account.email });
    expect(await codeOf(login(second))).toBe('oauth:already_linked');
    expect(await connectionRows(second)).toBe(0);
  });

  it('uses a state once, for its provider and purpose only', async () => {
    const who = newIdentity(provider);
    const grant = await consent(who);
    await oauth.completeLogin({ provider: enumOf[provider], ...grant });
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...grant }))).toBe('oauth:state_invalid');
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], code: grant.code, state: 'unknown', browserBinding: BROWSER }))).toBe(
      'oauth:state_invalid',
    );

    const crossed = await consent(who);
    const other = enumOf[otherThan(provider)];
    expect(await codeOf(oauth.completeLogin({ provider: other, ...crossed }))).toBe('oauth:state_invalid');
    // A mismatched state is used up all the same.
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...crossed }))).toBe('oauth:state_invalid');

    const account = await registerAccount();
    const linkGrant = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK, account.id);
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...linkGrant }))).toBe('oauth:state_invalid');
    const loginGrant = await consent(who);
    expect(await codeOf(oauth.linkProvider({ userId: account.id, provider: enumOf[provider], ...loginGrant }))).toBe(
      'oauth:state_invalid',
    );
    const someoneElse = await registerAccount();
    const foreign = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK, account.id);
    expect(await codeOf(oauth.linkProvider({ userId: someoneElse.id, provider: enumOf[provider], ...foreign }))).toBe(
      'oauth:state_invalid',
    );
  });

  it('completes a state only for the user agent that asked for it', async () => {
    const who = newIdentity(provider);
    const elsewhere = await consent(who);
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...elsewhere, browserBinding: 'another-browser' }))).toBe(
      'oauth:state_invalid',
    );
    const none = await consent(who);
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...none, browserBinding: '' }))).toBe('oauth:state_invalid');
    // Refused once, the state is used up even for the right browser.
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], ...none }))).toBe('oauth:state_invalid');
    const account = await registerAccount();
    const linking = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK, account.id);
    expect(await codeOf(oauth.linkProvider({ userId: account.id, provider: enumOf[provider], ...linking, browserBinding: 'x' }))).toBe(
      'oauth:state_invalid',
    );
    const unbound = { provider: enumOf[provider], purpose: AuthorizationPurpose.AUTHORIZATION_PURPOSE_LOGIN, userId: '', browserBinding: '' };
    expect((await errorOf(oauth.createAuthorization(unbound))).fields).toEqual([{ field: 'browser_binding', message: expect.any(String) }]);
  });

  it('refuses a code issued by the other provider', async () => {
    const { code } = await consent(newIdentity(otherThan(provider)));
    const { state } = await startAuthorization(provider);
    expect(await codeOf(oauth.completeLogin({ provider: enumOf[provider], code, state, browserBinding: BROWSER }))).toBe('oauth:code_invalid');
  });

  it('links, lists and unlinks for a signed-in user', async () => {
    const account = await registerAccount();
    const who = newIdentity(provider);
    const { connection } = await link(who, account.id);
    expect(connection).toEqual({
      provider: enumOf[provider],
      providerUserId: who.providerUserId,
      email: who.email,
      linkedAt: expect.any(Date),
    });
    // The notice goes to the account's address, not the provider's.
    await notice(account.email, 'oauth_linked', provider);
    expect((await oauth.listConnections({ userId: account.id })).connections).toEqual([connection]);
    expect((await login(who)).signedIn).toMatchObject({ userId: account.id, linkedNow: false });

    const intruder = await registerAccount();
    expect(await codeOf(link(who, intruder.id))).toBe('oauth:already_linked');
    const second = newIdentity(provider);
    expect(await codeOf(link(second, account.id))).toBe('oauth:already_linked');
    expect(await connectionRows(second)).toBe(0);

    await oauth.unlinkProvider({ userId: account.id, provider: enumOf[provider] });
    await notice(account.email, 'oauth_unlinked', provider);
    expect((await oauth.listConnections({ userId: account.id })).connections).toEqual([]);
    expect(await codeOf(oauth.unlinkProvider({ userId: account.id, provider: enumOf[provider] }))).toBe(
      'oauth:connection_not_found',
    );
  });

  it('confirms the identity of a user only with one of their own connections, writing nothing', async () => {
    const account = await registerAccount();
    const who = newIdentity(provider);
    const { connection } = await link(who, account.id);
    const reauthenticate = async (as: TestIdentity, userId: string) => {
      const grant = await consent(as, AuthorizationPurpose.AUTHORIZATION_PURPOSE_REAUTHENTICATE, userId);
      return oauth.confirmIdentity({ userId, provider: enumOf[provider], ...grant });
    };
    expect((await reauthenticate(who, account.id)).connection).toEqual(connection);

    // Another identity at the provider, and the right identity for another user, prove nothing.
    const stranger = newIdentity(provider);
    expect(await codeOf(reauthenticate(stranger, account.id))).toBe('oauth:identity_not_linked');
    expect(await connectionRows(stranger)).toBe(0);
    const someoneElse = await registerAccount();
    expect(await codeOf(reauthenticate(who, someoneElse.id))).toBe('oauth:identity_not_linked');

    // A reauthenticate state works for its user only, and a link state is not one.
    const foreign = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_REAUTHENTICATE, someoneElse.id);
    expect(await codeOf(oauth.confirmIdentity({ userId: account.id, provider: enumOf[provider], ...foreign }))).toBe('oauth:state_invalid');
    const linking = await consent(who, AuthorizationPurpose.AUTHORIZATION_PURPOSE_LINK, account.id);
    expect(await codeOf(oauth.confirmIdentity({ userId: account.id, provider: enumOf[provider], ...linking }))).toBe('oauth:state_invalid');
    expect((await oauth.listConnections({ userId: account.id })).connections).toEqual([connection]);
  });

  it('refuses a provider email that is not verified when linking', async () => {
    const account = await registerAccount();
    const who = newIdentity(provider, { verified: false });
    expect(await codeOf(link(who, account.id))).toBe('oauth:email_not_verified');
    expect(await connectionRows(who)).toBe(0);
  });
});

describe('password resets', () => {
  it('take back the links the reset took back in the ledger, answering the same for the same reset', async () => {
    const account = await registerAccount();
    await link(newIdentity('google'), account.id);
    await link(newIdentity('github'), account.id);
    // Linked before the window: it stays, once the ledger has heard when.
    await db.query("UPDATE user_oauth_connections SET linked_at = now() - interval '73 hours' WHERE user_id = $1 AND provider = 'github'", [account.id]);
    expect(await unsettled(account.id)).toBe(true);
    await sweepLedger({ pool: db, identity, logger: serviceLogger }, connectionLedger);
    const reset = await resetPasswordOf(account.id);
    expect(await ledgerOf(account.id)).toEqual(['password::active', 'provider:github:active', 'provider:google:removing']);
    const named = { userId: account.id, resetId: reset.resetId };
    expect(await oauth.removeRecentConnections(named)).toEqual({ removed: ['google'], remaining: ['github'] });
    expect(await oauth.removeRecentConnections(named)).toEqual({ removed: ['google'], remaining: ['github'] });
    expect((await oauth.listConnections({ userId: account.id })).connections.map((connection) => connection.provider)).toEqual([enumOf.github]);
    expect(await ledgerOf(account.id)).toEqual(['password::active', 'provider:github:active']);
    // Another reset names only what it removed itself; a reset id of nothing removes nothing.
    expect(await oauth.removeRecentConnections({ userId: account.id, resetId: (await resetPasswordOf(account.id)).resetId })).toEqual({
      removed: [],
      remaining: ['github'],
    });
    expect(await oauth.removeRecentConnections({ userId: account.id, resetId: randomUUID() })).toEqual({ removed: [], remaining: ['github'] });
  });

  it('never take back the connection a provider sign-up created the account with', async () => {
    const userId = await signUp(newIdentity('google'));
    await link(newIdentity('github'), userId);
    const reset = await resetPasswordOf(userId);
    expect(await oauth.removeRecentConnections({ userId, resetId: reset.resetId })).toEqual({ removed: ['github'], remaining: ['google'] });
  });

  it('need a user and a reset id', async () => {
    expect(await codeOf(oauth.removeRecentConnections({ userId: 'nope', resetId: randomUUID() }))).toBe('validation:invalid_input');
    expect(await codeOf(oauth.removeRecentConnections({ userId: randomUUID(), resetId: 'nope' }))).toBe('validation:invalid_input');
  });
});

describe('pending signups and states that expire', () => {
  it('refuses an unknown or expired pending token', async () => {
    expect(await codeOf(oauth.completeSignup({ pendingToken: 'unknown', handle: unique('h_') }))).toBe(
      'oauth:pending_signup_invalid',
    );
    const who = googleIdentity();
    const { pendingSignup } = await login(who);
    const pendingToken = pendingSignup!.pendingToken;
    expect(await redis.pexpire(`${redisPrefix}oauth:pending_signup:${sha256(pendingToken)}`, 1)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await codeOf(oauth.completeSignup({ pendingToken, handle: unique('h_') }))).toBe('oauth:pending_signup_invalid');
    expect(await accountWithEmail(who.email)).toBeUndefined();
  });

  it('refuses an expired state', async () => {
    const grant = await consent(githubIdentity());
    expect(await redis.pexpire(`${redisPrefix}oauth:state:${sha256(grant.state)}`, 1)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await codeOf(oauth.completeLogin({ provider: Provider.PROVIDER_GITHUB, ...grant }))).toBe('oauth:state_invalid');
  });
});

describe('the last way into an account', () => {
  it('keeps the last connection of an account without a password', async () => {
    const userId = await signUp(googleIdentity());
    expect(await codeOf(oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GOOGLE }))).toBe('oauth:last_login_method');

    await link(githubIdentity(), userId);
    await oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GOOGLE });
    expect(await codeOf(oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GITHUB }))).toBe('oauth:last_login_method');
    expect((await oauth.listConnections({ userId })).connections.map((c) => c.provider)).toEqual([Provider.PROVIDER_GITHUB]);
  });

  it('lets an account with a passkey remove its last connection', async () => {
    const userId = await signUp(googleIdentity());
    // What the passkeys unit holds, as it settles it in the ledger.
    const reference = randomUUID();
    await identity.settleCredentials({
      kind: CredentialKind.CREDENTIAL_KIND_PASSKEY,
      accounts: [{ userId, credentials: [{ reference, addedAt: new Date(), openedAccount: false }] }],
    });
    await oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GOOGLE });
    expect((await oauth.listConnections({ userId })).connections).toEqual([]);
    expect(await ledgerOf(userId)).toEqual([`passkey:${reference}:active`]);
  });

  it('holds every connection in identity’s ledger before answering, and none once unlinked', async () => {
    const userId = await signUp(googleIdentity());
    expect(await ledgerOf(userId)).toEqual(['provider:google:active']);
    await link(githubIdentity(), userId);
    expect(await ledgerOf(userId)).toEqual(['provider:github:active', 'provider:google:active']);
    await oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GOOGLE });
    expect(await ledgerOf(userId)).toEqual(['provider:github:active']);
    expect(await unsettled(userId)).toBe(false);
  });

  it('leaves the ledger as it was when the unlink is refused', async () => {
    const userId = await signUp(googleIdentity());
    expect(await codeOf(oauth.unlinkProvider({ userId, provider: Provider.PROVIDER_GOOGLE }))).toBe('oauth:last_login_method');
    expect(await ledgerOf(userId)).toEqual(['provider:google:active']);
  });

  it('settles at start what the ledger does not hold: a connection an oauth of the previous release made', async () => {
    const account = await registerAccount();
    // Stored as the previous release stores it, without reserving it; the table's trigger queues the account.
    await db.query(`INSERT INTO oauth.user_oauth_connections (provider, provider_user_id, user_id, email) VALUES ('github', $1, $2, $3)`, [
      unique('gh'),
      account.id,
      account.email,
    ]);
    expect(await ledgerOf(account.id)).toEqual(['password::active']);
    expect(await unsettled(account.id)).toBe(true);
    await withService({}, async () => {
      await waitFor(async () => ((await unsettled(account.id)) ? undefined : true), { description: 'the sweep settling the account' });
    });
    expect(await ledgerOf(account.id)).toEqual(['password::active', 'provider:github:active']);
  });

  it('lets an account with a password remove its only connection', async () => {
    const account = await registerAccount();
    await link(githubIdentity(), account.id);
    await oauth.unlinkProvider({ userId: account.id, provider: Provider.PROVIDER_GITHUB });
    expect((await oauth.listConnections({ userId: account.id })).connections).toEqual([]);
  });

  it('removes every connection on account deletion, idempotently', async () => {
    const userId = await signUp(githubIdentity());
    await link(googleIdentity(), userId);
    expect((await oauth.listConnections({ userId })).connections).toHaveLength(2);
    await oauth.deleteUserData({ userId });
    await oauth.deleteUserData({ userId });
    expect((await oauth.listConnections({ userId })).connections).toEqual([]);
    expect(await codeOf(oauth.deleteUserData({ userId: 'not-a-uuid' }))).toBe('validation:invalid_input');
  });
});

describe('Google specifics', () => {
  it('reads what the id_token lacks from userinfo, for the same subject', async () => {
    const email = newEmail();
    const sub = unique('1098');
    const who = googleIdentity({
      claims: { sub, email: undefined, email_verified: undefined, name: undefined, picture: undefined },
      userinfo: { sub, email, email_verified: true, name: 'Grace Hopper', picture: 'https://lh3.example.com/grace.png' },
    });
    const { pendingSignup } = await login(who);
    expect(pendingSignup).toMatchObject({ email, name: 'Grace Hopper', avatarUrl: 'https://lh3.example.com/grace.png' });
  });

  it('accepts email_verified given as the string "true"', async () => {
    const who = googleIdentity({ claims: { email_verified: 'true' } });
    expect((await login(who)).pendingSignup?.email).toBe(who.email);
  });

  it('treats an answer without an email as the provider failing', async () => {
    const sub = unique('1098');
    const who = googleIdentity({ claims: { sub, email: undefined }, userinfo: { sub } });
    expect(await codeOf(login(who))).toBe('oauth:provider_unavailable');
  });

  it('refuses an id_token whose signature does not verify, creating nothing', async () => {
    const account = await registerAccount();
    const who = googleIdentity({ email: account.email });
    await oidc.fail('token', 'bad_signature');
    try {
      expect(await codeOf(login(who))).toBe('oauth:provider_unavailable');
    } finally {
      await oidc.heal();
    }
    expect(await connectionRows(who)).toBe(0);
  });

  it('treats a token answer that is not JSON as the provider failing', async () => {
    await oidc.fail('token', 'garbage');
    try {
      expect(await codeOf(login(googleIdentity()))).toBe('oauth:provider_unavailable');
    } finally {
      await oidc.heal();
    }
  });

  it('gives up on a slow token endpoint after OAUTH_PROVIDER_TIMEOUT_MS', async () => {
    const who = googleIdentity();
    const grant = await consent(who);
    await oidc.fail('token', 'slow', 3_000);
    const started = Date.now();
    try {
      expect(await codeOf(oauth.completeLogin({ provider: Provider.PROVIDER_GOOGLE, ...grant }))).toBe(
        'oauth:provider_unavailable',
      );
    } finally {
      await oidc.heal();
    }
    expect(Date.now() - started).toBeLessThan(PROVIDER_TIMEOUT_MS + 1_500);
    expect(await accountWithEmail(who.email)).toBeUndefined();
  });
});

describe('GitHub specifics', () => {
  it('uses the primary verified address from /user/emails, which /user keeps private', async () => {
    const primary = newEmail();
    const who = githubIdentity({
      emails: [
        { email: newEmail(), primary: false, verified: true, visibility: null },
        { email: primary.toUpperCase(), primary: true, verified: true, visibility: 'private' },
      ],
    });
    expect((await login(who)).pendingSignup?.email).toBe(primary);
  });

  it('refuses an unverified primary address even when another one is verified', async () => {
    const who = githubIdentity({
      emails: [
        { email: newEmail(), primary: true, verified: false, visibility: 'private' },
        { email: newEmail(), primary: false, verified: true, visibility: null },
      ],
    });
    expect(await codeOf(login(who))).toBe('oauth:email_not_verified');
  });

  it('reads GitHub\'s 200 answer with an error field as a refused code', async () => {
    const { state } = await startAuthorization('github');
    expect(await codeOf(oauth.completeLogin({ provider: Provider.PROVIDER_GITHUB, code: 'not-a-code', state, browserBinding: BROWSER }))).toBe(
      'oauth:code_invalid',
    );
  });

  it.each([
    ['token', 'garbage'],
    ['token', 'reset'],
    ['user', 'garbage'],
    ['emails', 'slow'],
  ] as const)('treats %s answering %s as the provider failing, creating nothing', async (endpoint, mode) => {
    const account = await registerAccount();
    const who = githubIdentity({ email: account.email });
    const grant = await consent(who);
    await github.fail(endpoint, mode, 3_000);
    const started = Date.now();
    try {
      expect(await codeOf(oauth.completeLogin({ provider: Provider.PROVIDER_GITHUB, ...grant }))).toBe(
        'oauth:provider_unavailable',
      );
    } finally {
      await github.heal();
    }
    expect(Date.now() - started).toBeLessThan(PROVIDER_TIMEOUT_MS + 1_500);
    expect(await connectionRows(who)).toBe(0);
  });
});

describe('configuration', () => {
  it('leaves a provider without its variables off in development, and retries a failed discovery', async () => {
    const unset = { GITHUB_CLIENT_ID: undefined, GITHUB_CLIENT_SECRET: undefined, GITHUB_REDIRECT_URI: undefined };
    await withService({ NODE_ENV: 'development', ...unset }, async (client) => {
      expect((await client.listProviders({})).providers).toEqual([Provider.PROVIDER_GOOGLE]);
      expect(await codeOf(startAuthorization('github', undefined, undefined, client))).toBe('oauth:provider_not_found');

      await oidc.fail('discovery', 'garbage');
      try {
        expect(await codeOf(startAuthorization('google', undefined, undefined, client))).toBe('oauth:provider_unavailable');
      } finally {
        await oidc.heal();
      }
      expect((await login(googleIdentity(), client)).pendingSignup).toBeDefined();
    });
    expect(logLines.some((line) => line.includes('provider is off') && line.includes('"provider":"github"'))).toBe(true);
  });

  it('needs no discovery when every Google endpoint is configured', async () => {
    const endpoints = {
      GOOGLE_AUTHORIZATION_URL: `${oidc.url}/authorize`,
      GOOGLE_TOKEN_URL: `${oidc.url}/token`,
      GOOGLE_USERINFO_URL: `${oidc.url}/userinfo`,
      GOOGLE_JWKS_URL: `${oidc.url}/jwks`,
    };
    await withService(endpoints, async (client) => {
      await oidc.fail('discovery', 'reset');
      try {
        const sub = unique('1098');
        const email = newEmail();
        const who = googleIdentity({ claims: { sub, email: undefined }, userinfo: { sub, email, email_verified: true } });
        expect((await login(who, client)).pendingSignup?.email).toBe(email);
      } finally {
        await oidc.heal();
      }
    });
  });

  it('answers provider_unavailable, not code_invalid, when the provider refuses our client credentials', async () => {
    await withService({ GITHUB_CLIENT_SECRET: 'a-wrong-secret' }, async (client) => {
      const who = githubIdentity();
      expect(await codeOf(login(who, client))).toBe('oauth:provider_unavailable');
      expect(await connectionRows(who)).toBe(0);
    });
  });
});

describe('providers that are down', () => {
  it('answers provider_unavailable', async () => {
    const googleState = await startAuthorization('google');
    const githubState = await startAuthorization('github');
    await Promise.all([oidc.stop(), github.stop()]);
    for (const [provider, started] of [
      [Provider.PROVIDER_GOOGLE, googleState],
      [Provider.PROVIDER_GITHUB, githubState],
    ] as const) {
      expect(await codeOf(oauth.completeLogin({ provider, code: 'any-code', state: started.state, browserBinding: BROWSER }))).toBe(
        'oauth:provider_unavailable',
      );
    }
  });
});

describe('logs', () => {
  it('never contain a code, a state, a pending token or a client secret', () => {
    expect(logLines.some((line) => line.includes('identity provider call failed'))).toBe(true);
    const leaks = logLines.filter((line) => [...sensitive].some((secret) => line.includes(secret)));
    expect(leaks).toEqual([]);
  });
});
