import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import jsQR from 'jsqr';
import { connect, AckPolicy, type NatsConnection, type JsMsg } from 'nats';
import pg from 'pg';
import { PNG } from 'pngjs';
import { identityV1, totpV1 } from '@latchkey/contracts';
import { sweepLedger } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import { jobSubjects, mailJobSchema, type MailJob } from '@latchkey/jobs-contract';
import { ensureStreams, topology } from '@latchkey/job-streams';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
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
import { loadTotpConfig, type TotpConfig } from '../../src/config';
import { migrate } from '../../src/migrate';
import { totpLedger } from '../../src/totp-ledger';
import { startTotpService } from '../../src/totp-service';

type TotpClient = TestServiceClient<typeof totpV1.TotpServiceService>;

const ISSUER = 'Latchkey Test';
const encryptionKey = randomBytes(32);
const silent = createLogger({ service: 'totp-test', level: 'silent' });

// --- An RFC 6238 implementation of the test's own (node:crypto only), so that
// --- the service's codes are checked against an independent one.

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** RFC 4226 §5.3 with the RFC 6238 time counter: 30-second steps, 6 digits. */
function totpAt(base32Secret: string, unixMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixMs / 30_000)));
  const mac = createHmac('sha1', base32Decode(base32Secret)).update(counter).digest();
  const offset = mac[19]! & 0xf;
  const value = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(value % 1_000_000).padStart(6, '0');
}

// --- The service under test, with a clock the tests move.

let clockMs = Date.now();
const STEP_MS = 30_000;
/** Moves the service's clock one time step on, so that the next code belongs to a step not used yet. */
const nextStep = (): void => {
  clockMs += STEP_MS;
};
const codeFor = (secret: string, offsetSteps = 0): string => totpAt(secret, clockMs + offsetSteps * STEP_MS);
const wrongCodeFor = (secret: string): string => {
  const near = new Set([-1, 0, 1].map((d) => codeFor(secret, d)));
  let code = '000000';
  for (let n = 0; near.has(code); n += 1) code = String(n).padStart(6, '0');
  return code;
};

const logChunks: string[] = [];
const logDestination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logChunks.push(chunk.toString());
    done();
  },
});
/** Every secret, code and token the tests saw; none may appear in the service's log. */
const sensitive = new Set<string>();
const remember = <T extends string | string[]>(value: T): T => {
  for (const item of typeof value === 'string' ? [value] : value) sensitive.add(item);
  return value;
};

let database: TestDatabase;
let prefix: string;
let environment: Record<string, string>;
let config: TotpConfig;
let identityService: Running;
let identity: TestServiceClient<typeof identityV1.IdentityServiceService>;
let service: Running;
let client: TotpClient;
let redis: Redis;
let db: pg.Pool;
let nats: NatsConnection;
let subscription: { stop(): void } | undefined;
const jobs: MailJob[] = [];

function clientFor(running: Running): TotpClient {
  return createTestServiceClient(totpV1.TotpServiceService, `127.0.0.1:${String(running.readyFields?.grpc_port)}`);
}

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await errorOf(promise)).code;
}

function noticeTo(to: string, notice: string): Promise<MailJob> {
  return waitFor(() => jobs.find((job) => job.to === to && job.template === 'security_notice' && job.notice === notice), {
    description: `a ${notice} notice to ${to}`,
  });
}

let accounts = 0;
/** An account in identity, as the gateway passes it to totp.v1. */
async function newAccount() {
  accounts += 1;
  const tag = `${accounts}_${Date.now().toString(36)}`;
  const accountEmail = `totp.${tag}@example.com`;
  const { user } = await identity.createVerifiedUser({ handle: `user_${tag}`.slice(0, 32), email: accountEmail });
  return { userId: user!.id, accountEmail, accountHandle: user!.handle };
}

/** A user with TOTP enabled; the clock is moved past the step of the enabling code. */
async function enrolledAccount(on: TotpClient = client) {
  const account = await newAccount();
  const setup = await on.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
  remember([setup.secret, setup.setupToken]);
  const { backupCodes } = await on.enable({
    ...account,
    setupToken: setup.setupToken,
    code: remember(codeFor(setup.secret)),
  });
  remember(backupCodes);
  nextStep();
  return { ...account, secret: setup.secret, backupCodes };
}

async function challenge(userId: string, on: TotpClient = client): Promise<string> {
  return remember((await on.createLoginChallenge({ userId, sessionEpoch: 0 })).tempToken);
}

beforeAll(async () => {
  database = await createTestDatabase('totp');
  prefix = uniqueName('totp');
  environment = {
    DATABASE_URL: database.url,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
  };
  const identityConfig = loadIdentityConfig({ ...environment, ADMIN_GRPC_PORT: '0' });
  await migrateIdentity(identityConfig, silent);
  identityService = await startIdentityService(identityConfig, silent);
  const IDENTITY_GRPC_ADDRESS = `127.0.0.1:${String(identityService.readyFields?.grpc_port)}`;
  identity = createTestServiceClient(identityV1.IdentityServiceService, IDENTITY_GRPC_ADDRESS);
  environment = { ...environment, IDENTITY_GRPC_ADDRESS, TOTP_ISSUER: ISSUER, TOTP_ENCRYPTION_KEY: encryptionKey.toString('base64') };
  config = loadTotpConfig(environment);
  await migrate(config, silent);
  const logger = createLogger({ service: 'totp', level: 'debug', destination: logDestination });
  service = await startTotpService(config, logger, { now: () => clockMs });
  client = clientFor(service);
  redis = new Redis(testRedisUrl());
  db = new pg.Pool({ connectionString: database.url, options: '-c search_path=totp' });

  nats = await connect({ servers: testNatsUrl() });
  const names = topology(prefix);
  // The jobs worker owns the streams; here the test stands in for it.
  const jsm = await nats.jetstreamManager();
  await ensureStreams(jsm, prefix);
  await jsm.consumers.add(names.jobsStream, { durable_name: 'test', ack_policy: AckPolicy.Explicit });
  const messages = await (await nats.jetstream().consumers.get(names.jobsStream, 'test')).consume();
  subscription = messages;
  void (async () => {
    for await (const message of messages) record(message);
  })();
});

/** Keeps the mails; identity's other jobs (an account deletion's cleanup) pass by. */
function record(message: JsMsg): void {
  if (message.subject.endsWith(jobSubjects.sendMail)) jobs.push(mailJobSchema.parse(message.json()));
  message.ack();
}

afterAll(async () => {
  subscription?.stop();
  client?.close();
  await service?.stop();
  identity?.close();
  await identityService?.stop();
  const jsm = await nats?.jetstreamManager();
  const names = topology(prefix);
  await jsm?.streams.delete(names.jobsStream).catch(() => undefined);
  await jsm?.streams.delete(names.deadLetterStream).catch(() => undefined);
  await nats?.close();
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
  await db?.end();
  await database?.drop();
});

describe('setup and enable', () => {
  it('returns a base32 secret, its otpauth URI, a QR code of that URI and a setup token', async () => {
    const account = await newAccount();
    const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
    remember([setup.secret, setup.setupToken]);

    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(setup.secret)).toHaveLength(20);
    const uri = new URL(setup.otpauthUri);
    expect(`${uri.protocol}//${uri.host}${uri.pathname}`).toBe(
      `otpauth://totp/Latchkey%20Test:${encodeURIComponent(account.accountEmail)}`,
    );
    expect(uri.searchParams.get('secret')).toBe(setup.secret);
    expect(uri.searchParams.get('issuer')).toBe('Latchkey Test');
    // Key Uri Format defaults (SHA1, 6 digits, 30 s) may be left out; when present they must be those.
    expect(uri.searchParams.get('algorithm') ?? 'SHA1').toMatch(/^SHA1$/i);
    expect(uri.searchParams.get('digits') ?? '6').toBe('6');
    expect(uri.searchParams.get('period') ?? '30').toBe('30');
    expect(Buffer.from(setup.setupToken, 'base64url')).toHaveLength(32);
    expect(setup.setupTokenExpiresAt!.getTime()).toBe(clockMs + 600_000);

    expect(setup.qrCodePng).toMatch(/^data:image\/png;base64,/);
    const png = PNG.sync.read(Buffer.from(setup.qrCodePng.slice('data:image/png;base64,'.length), 'base64'));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(setup.otpauthUri);

    // The pending secret waits in Redis sealed, and the token only as a hash.
    const pending = JSON.stringify(await redis.hgetall(`${prefix}:totp:setup:${account.userId}`));
    expect(pending).toContain('ciphertext');
    for (const form of [setup.secret, base32Decode(setup.secret).toString('base64'), setup.setupToken]) {
      expect(pending).not.toContain(form);
    }
  });

  it('enables with a code computed independently, returns 10 backup codes and mails a notice', async () => {
    const account = await newAccount();
    const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
    remember([setup.secret, setup.setupToken]);
    const { backupCodes } = await client.enable({
      ...account,
      setupToken: setup.setupToken,
      code: remember(codeFor(setup.secret)),
    });
    remember(backupCodes);

    expect(backupCodes).toHaveLength(10);
    expect(new Set(backupCodes).size).toBe(10);
    for (const code of backupCodes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);

    const status = await client.getStatus({ userId: account.userId });
    expect(status).toMatchObject({ enabled: true, backupCodesRemaining: 10 });
    expect(status.enabledAt).toBeInstanceOf(Date);

    expect(await noticeTo(account.accountEmail, 'totp_enabled')).toMatchObject({ handle: account.accountHandle });
    // The setup token is used up, and the pending record with it.
    expect(await redis.exists(`${prefix}:totp:setup:${account.userId}`)).toBe(0);
    expect(await codeOf(client.enable({ ...account, setupToken: setup.setupToken, code: codeFor(setup.secret, 1) }))).toBe(
      'totp:already_enabled',
    );
  });

  it('stores the secret only encrypted and the backup codes only as keyed hashes', async () => {
    const account = await enrolledAccount();
    const raw = base32Decode(account.secret);
    const { rows } = await db.query<{ secret_ciphertext: Buffer; key_id: string; last_used_step: string }>(
      'SELECT * FROM totp_credentials WHERE user_id = $1',
      [account.userId],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.secret_ciphertext.includes(raw)).toBe(false);
    expect(row.secret_ciphertext.toString('latin1')).not.toContain(account.secret);
    const rowText = JSON.stringify(row);
    for (const form of [account.secret, raw.toString('hex'), raw.toString('base64')]) expect(rowText).not.toContain(form);
    expect(row.key_id).toMatch(/^[0-9a-f]{16}$/);

    const hashes = await db.query<{ code_hash: Buffer }>('SELECT code_hash FROM backup_codes WHERE user_id = $1', [
      account.userId,
    ]);
    expect(hashes.rows).toHaveLength(10);
    const stored = hashes.rows.map((r) => r.code_hash.toString('hex'));
    for (const code of account.backupCodes) {
      const plain = code.replace('-', '');
      expect(stored).not.toContain(createHash('sha256').update(plain).digest('hex'));
      expect(stored).not.toContain(Buffer.from(plain).toString('hex'));
    }
  });

  it('refuses setup and enable when TOTP is already enabled', async () => {
    const account = await enrolledAccount();
    expect(await codeOf(client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail }))).toBe(
      'totp:already_enabled',
    );
  });

  it('refuses a wrong code, and a code two steps away, leaving the setup usable', async () => {
    const account = await newAccount();
    const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
    remember([setup.secret, setup.setupToken]);
    const attempt = (code: string) => client.enable({ ...account, setupToken: setup.setupToken, code });
    expect(await codeOf(attempt(wrongCodeFor(setup.secret)))).toBe('totp:invalid_code');
    expect(await codeOf(attempt(codeFor(setup.secret, 2)))).toBe('totp:invalid_code');
    expect(await codeOf(attempt('12345'))).toBe('validation:invalid_input');
    // One step of drift is fine.
    await expect(attempt(remember(codeFor(setup.secret, -1)))).resolves.toBeDefined();
  });

  it('refuses an unknown, foreign, replaced or expired setup token', async () => {
    const first = await newAccount();
    const second = await newAccount();
    const setupOf = async (account: Awaited<ReturnType<typeof newAccount>>) => {
      const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
      remember([setup.secret, setup.setupToken]);
      return setup;
    };
    const firstSetup = await setupOf(first);
    const code = codeFor(firstSetup.secret);
    const enable = (account: Awaited<ReturnType<typeof newAccount>>, setupToken: string) =>
      codeOf(client.enable({ ...account, setupToken, code }));

    expect(await enable(first, randomBytes(32).toString('base64url'))).toBe('totp:setup_token_invalid');
    expect(await enable(second, firstSetup.setupToken)).toBe('totp:setup_token_invalid');

    const newer = await setupOf(first);
    expect(await enable(first, firstSetup.setupToken)).toBe('totp:setup_token_invalid');

    await redis.pexpire(`${prefix}:totp:setup:${first.userId}`, 1);
    await waitFor(async () => ((await redis.exists(`${prefix}:totp:setup:${first.userId}`)) === 0 ? true : undefined));
    expect(await enable(first, newer.setupToken)).toBe('totp:setup_token_invalid');
  });
});

describe('login challenge', () => {
  it('passes with a TOTP code once; the same code is refused afterwards', async () => {
    const account = await enrolledAccount();
    const code = remember(codeFor(account.secret));
    const { userId } = await client.verifyLoginChallenge({ tempToken: await challenge(account.userId), code });
    expect(userId).toBe(account.userId);

    // Replayed within its window, on a fresh token.
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), code }))).toBe(
      'totp:invalid_code',
    );
    // A code of an earlier step than the one used is refused too.
    const older = remember(codeFor(account.secret, -1));
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), code: older }))).toBe(
      'totp:invalid_code',
    );
    // The next step's code is fine.
    nextStep();
    const fresh = remember(codeFor(account.secret));
    await expect(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), code: fresh })).resolves.toEqual({
      userId: account.userId,
      firstFactor: 'pwd',
      sessionEpoch: 0,
      organizationId: '',
    });
  });

  it('does not let the code that enabled TOTP also pass the first login', async () => {
    const account = await newAccount();
    const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
    remember([setup.secret, setup.setupToken]);
    const code = remember(codeFor(setup.secret));
    await client.enable({ ...account, setupToken: setup.setupToken, code });
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), code }))).toBe(
      'totp:invalid_code',
    );
  });

  it('uses a temp token once', async () => {
    const account = await enrolledAccount();
    const tempToken = await challenge(account.userId);
    await client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) });
    nextStep();
    expect(await codeOf(client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) }))).toBe(
      'totp:temp_token_invalid',
    );
  });

  it('accepts a backup code once, ignoring hyphen and case', async () => {
    const account = await enrolledAccount();
    const backupCode = account.backupCodes[0]!;
    const typed = backupCode.replace('-', '').toUpperCase();
    await expect(
      client.verifyLoginChallenge({ tempToken: await challenge(account.userId), backupCode: typed }),
    ).resolves.toEqual({ userId: account.userId, firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' });
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), backupCode }))).toBe(
      'totp:invalid_code',
    );
    expect((await client.getStatus({ userId: account.userId })).backupCodesRemaining).toBe(9);
  });

  it('lets exactly one of 5 parallel logins with the same backup code win', async () => {
    const account = await enrolledAccount();
    const backupCode = account.backupCodes[1]!;
    const tokens = await Promise.all(Array.from({ length: 5 }, () => challenge(account.userId)));
    const results = await Promise.allSettled(
      tokens.map((tempToken) => client.verifyLoginChallenge({ tempToken, backupCode })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failures.map((f) => (f.reason as AppError).code)).toEqual(Array(4).fill('totp:invalid_code'));
    expect((await client.getStatus({ userId: account.userId })).backupCodesRemaining).toBe(9);
  });

  it('answers totp:backup_code_exhausted once every backup code is used', async () => {
    const account = await enrolledAccount();
    for (const backupCode of account.backupCodes) {
      await client.verifyLoginChallenge({ tempToken: await challenge(account.userId), backupCode });
    }
    expect((await client.getStatus({ userId: account.userId })).backupCodesRemaining).toBe(0);
    const tempToken = await challenge(account.userId);
    expect(await codeOf(client.verifyLoginChallenge({ tempToken, backupCode: account.backupCodes[0]! }))).toBe(
      'totp:backup_code_exhausted',
    );
    // That try tested no code: the token still takes a TOTP code.
    await expect(client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) })).resolves.toEqual({
      userId: account.userId,
      firstFactor: 'pwd',
      sessionEpoch: 0,
      organizationId: '',
    });
  });

  it('tells an unknown temp token from an expired one', async () => {
    const account = await enrolledAccount();
    expect(
      await codeOf(client.verifyLoginChallenge({ tempToken: randomBytes(32).toString('base64url'), code: '123456' })),
    ).toBe('totp:temp_token_invalid');
    const tempToken = await challenge(account.userId);
    clockMs += (config.TOTP_TEMP_TOKEN_TTL_SECONDS + 1) * 1000;
    expect(await codeOf(client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) }))).toBe(
      'totp:temp_token_expired',
    );
  });

  it('kills a temp token with its fifth wrong code', async () => {
    const account = await enrolledAccount();
    const tempToken = await challenge(account.userId);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect(await codeOf(client.verifyLoginChallenge({ tempToken, code: wrongCodeFor(account.secret) }))).toBe(
        'totp:invalid_code',
      );
    }
    expect(await codeOf(client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) }))).toBe(
      'totp:temp_token_invalid',
    );
  });

  it('counts parallel guesses atomically: no more than 5 are tested', async () => {
    const account = await enrolledAccount();
    const tempToken = await challenge(account.userId);
    const wrong = wrongCodeFor(account.secret);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => client.verifyLoginChallenge({ tempToken, code: wrong })),
    );
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as AppError).code : 'passed'));
    expect(codes.filter((c) => c === 'totp:invalid_code')).toHaveLength(5);
    expect(codes.filter((c) => c === 'totp:temp_token_invalid')).toHaveLength(7);
  });

  it('begins a login in one call: no challenge without TOTP, a working one with it', async () => {
    expect(await client.beginLogin({ userId: randomUUID(), firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' })).toEqual({ totpRequired: false, tempToken: '' });
    expect(await codeOf(client.beginLogin({ userId: 'not-a-uuid', firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' }))).toBe('validation:invalid_input');

    const account = await enrolledAccount();
    expect(await codeOf(client.beginLogin({ userId: account.userId, firstFactor: 'sms', sessionEpoch: 0, organizationId: '' }))).toBe('validation:invalid_input');
    expect(await codeOf(client.beginLogin({ userId: account.userId, firstFactor: 'pwd', sessionEpoch: -1, organizationId: '' }))).toBe('validation:invalid_input');
    // A provider sign-in: the first factor and the epoch come back with the user, for the session and its revocation check.
    expect(await codeOf(client.beginLogin({ userId: account.userId, firstFactor: 'fed', sessionEpoch: 0, organizationId: 'acme' }))).toBe('validation:invalid_input');
    // An SSO sign-in: the organisation it began for comes back too, for the session to act for.
    const organizationId = randomUUID();
    const begun = await client.beginLogin({ userId: account.userId, firstFactor: 'fed', sessionEpoch: 7, organizationId });
    expect(begun).toMatchObject({ totpRequired: true, tempToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(begun.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const code = remember(codeFor(account.secret));
    expect(await client.verifyLoginChallenge({ tempToken: remember(begun.tempToken), code })).toEqual({
      userId: account.userId,
      firstFactor: 'fed',
      sessionEpoch: 7,
      organizationId,
    });
  });

  it('refuses a challenge for a user without TOTP, and input that is not a code', async () => {
    expect(await codeOf(client.createLoginChallenge({ userId: randomUUID(), sessionEpoch: 0 }))).toBe('totp:not_enabled');
    expect(await codeOf(client.createLoginChallenge({ userId: 'not-a-uuid', sessionEpoch: 0 }))).toBe('validation:invalid_input');
    const account = await enrolledAccount();
    const tempToken = await challenge(account.userId);
    const invalid = async (request: { code?: string; backupCode?: string }) =>
      errorOf(client.verifyLoginChallenge({ tempToken, ...request }));
    expect((await invalid({})).fields).toEqual([{ field: 'code', message: 'a code or a backup code is required' }]);
    expect((await invalid({ code: '12 456' })).code).toBe('validation:invalid_input');
    expect((await invalid({ backupCode: 'abcde-fghi' })).code).toBe('validation:invalid_input');
    // Malformed input is refused before the token is looked at: it still works.
    await expect(client.verifyLoginChallenge({ tempToken, code: remember(codeFor(account.secret)) })).resolves.toBeDefined();
  });
});

describe('regenerate and disable', () => {
  it('regenerates backup codes: every old one stops working, the new ones work, a notice goes out', async () => {
    const account = await enrolledAccount();
    const request = { userId: account.userId, accountEmail: account.accountEmail, accountHandle: account.accountHandle };
    expect(await codeOf(client.regenerateBackupCodes({ ...request, code: wrongCodeFor(account.secret) }))).toBe(
      'totp:invalid_code',
    );
    const { backupCodes } = await client.regenerateBackupCodes({ ...request, code: remember(codeFor(account.secret)) });
    remember(backupCodes);
    nextStep();
    expect(backupCodes).toHaveLength(10);
    expect(backupCodes.filter((code) => account.backupCodes.includes(code))).toEqual([]);
    expect(await noticeTo(account.accountEmail, 'backup_codes_regenerated')).toMatchObject({
      handle: account.accountHandle,
    });
    for (const old of account.backupCodes.slice(0, 3)) {
      expect(
        await codeOf(client.verifyLoginChallenge({ tempToken: await challenge(account.userId), backupCode: old })),
      ).toBe('totp:invalid_code');
    }
    await expect(
      client.verifyLoginChallenge({ tempToken: await challenge(account.userId), backupCode: backupCodes[0]! }),
    ).resolves.toEqual({ userId: account.userId, firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' });
  });

  it('disables with a current TOTP code only, removes everything and mails a notice', async () => {
    const account = await enrolledAccount();
    const request = { userId: account.userId, accountEmail: account.accountEmail, accountHandle: account.accountHandle };
    const openChallenge = await challenge(account.userId);

    expect(await codeOf(client.disable({ ...request, code: account.backupCodes[0]! }))).toBe('validation:invalid_input');
    expect(await codeOf(client.disable({ ...request, code: wrongCodeFor(account.secret) }))).toBe('totp:invalid_code');
    await client.disable({ ...request, code: remember(codeFor(account.secret)) });
    nextStep();

    expect(await client.getStatus({ userId: account.userId })).toEqual({
      enabled: false,
      enabledAt: undefined,
      backupCodesRemaining: 0,
    });
    const counts = await db.query<{ credentials: number; codes: number }>(
      `SELECT (SELECT count(*)::int FROM totp_credentials WHERE user_id = $1) AS credentials,
              (SELECT count(*)::int FROM backup_codes WHERE user_id = $1) AS codes`,
      [account.userId],
    );
    expect(counts.rows[0]).toEqual({ credentials: 0, codes: 0 });
    expect(await noticeTo(account.accountEmail, 'totp_disabled')).toMatchObject({ handle: account.accountHandle });

    const code = remember(codeFor(account.secret));
    expect(await codeOf(client.disable({ ...request, code }))).toBe('totp:not_enabled');
    expect(await codeOf(client.regenerateBackupCodes({ ...request, code }))).toBe('totp:not_enabled');
    expect(await codeOf(client.createLoginChallenge({ userId: account.userId, sessionEpoch: 0 }))).toBe('totp:not_enabled');
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: openChallenge, code }))).toBe('totp:temp_token_invalid');
  });
});

describe('rate limit', () => {
  it('refuses every code for 15 minutes after 10 wrong ones, counted across calls', async () => {
    const account = await enrolledAccount();
    const request = { userId: account.userId, accountEmail: account.accountEmail, accountHandle: account.accountHandle };
    const wrong = wrongCodeFor(account.secret);
    // 5 wrong codes at login (which also kill that token) and 5 at disable.
    const tempToken = await challenge(account.userId);
    for (let i = 0; i < 5; i += 1) {
      expect(await codeOf(client.verifyLoginChallenge({ tempToken, code: wrong }))).toBe('totp:invalid_code');
    }
    for (let i = 0; i < 5; i += 1) expect(await codeOf(client.disable({ ...request, code: wrong }))).toBe('totp:invalid_code');

    const right = remember(codeFor(account.secret));
    const limited = await errorOf(client.disable({ ...request, code: right }));
    expect(limited.code).toBe('rate_limit:exceeded');
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.retryAfterSeconds).toBeLessThanOrEqual(900);
    const loginToken = await challenge(account.userId);
    expect(await codeOf(client.verifyLoginChallenge({ tempToken: loginToken, code: right }))).toBe('rate_limit:exceeded');
    expect(await codeOf(client.regenerateBackupCodes({ ...request, code: right }))).toBe('rate_limit:exceeded');

    // When the window ends, the right code works, on the same token: a limited try cost it no attempt.
    await redis.del(`${prefix}:totp:failures:${account.userId}`);
    await expect(client.verifyLoginChallenge({ tempToken: loginToken, code: right })).resolves.toEqual({
      userId: account.userId,
      firstFactor: 'pwd',
      sessionEpoch: 0,
      organizationId: '',
    });
  });
});

describe('key rotation', () => {
  it('opens secrets and backup codes of the previous key, and seals again with the new one', async () => {
    const account = await enrolledAccount();
    const newKey = randomBytes(32);
    const rotated = await startTotpService(
      loadTotpConfig({
        ...environment,
        TOTP_ENCRYPTION_KEY: newKey.toString('base64'),
        TOTP_PREVIOUS_ENCRYPTION_KEYS: encryptionKey.toString('base64'),
      }),
      silent,
      { now: () => clockMs },
    );
    const rotatedClient = clientFor(rotated);
    try {
      const keyIdBefore = (await db.query<{ key_id: string }>('SELECT key_id FROM totp_credentials WHERE user_id = $1', [
        account.userId,
      ])).rows[0]!.key_id;
      await rotatedClient.verifyLoginChallenge({
        tempToken: await challenge(account.userId, rotatedClient),
        code: remember(codeFor(account.secret)),
      });
      nextStep();
      const keyIdAfter = (await db.query<{ key_id: string }>('SELECT key_id FROM totp_credentials WHERE user_id = $1', [
        account.userId,
      ])).rows[0]!.key_id;
      expect(keyIdAfter).not.toBe(keyIdBefore);
      await expect(
        rotatedClient.verifyLoginChallenge({
          tempToken: await challenge(account.userId, rotatedClient),
          backupCode: account.backupCodes[0]!,
        }),
      ).resolves.toEqual({ userId: account.userId, firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' });
      // Re-sealed under the new key, the secret keeps working there.
      await expect(
        rotatedClient.verifyLoginChallenge({
          tempToken: await challenge(account.userId, rotatedClient),
          code: remember(codeFor(account.secret)),
        }),
      ).resolves.toEqual({ userId: account.userId, firstFactor: 'pwd', sessionEpoch: 0, organizationId: '' });
    } finally {
      rotatedClient.close();
      await rotated.stop();
    }
  });
});

describe('TOTP in identity’s credential ledger', () => {
  const TOTP = identityV1.CredentialKind.CREDENTIAL_KIND_TOTP;
  /** Whether identity's ledger says the account has no second factor at all. */
  const secondFactorOff = async (userId: string): Promise<boolean> => (await identity.getUser({ userId })).user!.secondFactorOff;
  const settled = async (userId: string): Promise<boolean> => (await db.query('SELECT 1 FROM unsettled_accounts WHERE user_id = $1', [userId])).rowCount === 0;

  it('holds TOTP as possibly on while it is on, and not once it is off', async () => {
    const account = await newAccount();
    expect(await secondFactorOff(account.userId)).toBe(true);
    const enrolled = await enrolledAccount();
    expect(await secondFactorOff(enrolled.userId)).toBe(false);
    await client.disable({ ...enrolled, code: remember(codeFor(enrolled.secret)) });
    nextStep();
    expect(await secondFactorOff(enrolled.userId)).toBe(true);
    expect(await settled(enrolled.userId)).toBe(true);
  });

  it('turns nothing on when identity cannot be told', async () => {
    const unreachable = await startTotpService(loadTotpConfig({ ...environment, IDENTITY_GRPC_ADDRESS: '127.0.0.1:1' }), silent, { now: () => clockMs });
    const unreachableClient = clientFor(unreachable);
    try {
      const account = await newAccount();
      const setup = await unreachableClient.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
      remember([setup.secret, setup.setupToken]);
      expect(await codeOf(unreachableClient.enable({ ...account, setupToken: setup.setupToken, code: remember(codeFor(setup.secret)) }))).toBe(
        'service:unavailable',
      );
      expect((await client.getStatus({ userId: account.userId })).enabled).toBe(false);
      expect(await secondFactorOff(account.userId)).toBe(true);
    } finally {
      unreachableClient.close();
      await unreachable.stop();
    }
  });

  it('turns nothing on for an account that no longer exists', async () => {
    const account = await newAccount();
    const setup = await client.beginSetup({ userId: account.userId, accountEmail: account.accountEmail });
    remember([setup.secret, setup.setupToken]);
    await identity.deleteUser({ userId: account.userId });
    expect(await codeOf(client.enable({ ...account, setupToken: setup.setupToken, code: remember(codeFor(setup.secret)) }))).toBe('auth:unauthorized');
    expect((await client.getStatus({ userId: account.userId })).enabled).toBe(false);
  });

  it('errs towards TOTP being on when a unit dies between reserving and settling, until the sweep settles it', async () => {
    const account = await newAccount();
    // A totp unit that reserved TOTP for the account and died before storing it.
    await identity.reserveCredential({ userId: account.userId, kind: TOTP, reference: '', openedAccount: false });
    expect(await secondFactorOff(account.userId)).toBe(false);
    // A sweep leaves a fresh reservation to the change that made it; asked for everything, it settles it.
    await sweepLedger({ pool: db, identity, logger: silent }, totpLedger);
    expect(await secondFactorOff(account.userId)).toBe(false);
    await sweepLedger({ pool: db, identity, logger: silent }, totpLedger, new Date(Date.now() + 1_000));
    expect(await secondFactorOff(account.userId)).toBe(true);
  });

  it('settles at start what a totp unit of the previous release changed: TOTP turned off without telling the ledger', async () => {
    const enrolled = await enrolledAccount();
    // The previous release deletes the credential, then fails to tell identity, which no longer hears it.
    await db.query('DELETE FROM totp_credentials WHERE user_id = $1', [enrolled.userId]);
    expect(await secondFactorOff(enrolled.userId)).toBe(false);
    const upgraded = await startTotpService(config, silent, { now: () => clockMs });
    try {
      // The sweep tells identity first and drops its own unsettled row after: both are awaited, as either alone can be seen in between.
      await waitFor(async () => ((await secondFactorOff(enrolled.userId)) && (await settled(enrolled.userId)) ? true : undefined), {
        description: 'the sweep settling the account',
      });
      expect(await secondFactorOff(enrolled.userId)).toBe(true);
      expect(await settled(enrolled.userId)).toBe(true);
    } finally {
      await upgraded.stop();
    }
  });

  it('settles more than a batch, with two pods sweeping at once', async () => {
    const template = (await enrolledAccount()).userId;
    const userIds = Array.from({ length: 1_100 }, () => randomUUID());
    await db.query(
      `INSERT INTO identity.users (id, handle, email) SELECT id, 'ledger_' || replace(id::text, '-', ''), id::text || '@example.com' FROM unnest($1::uuid[]) AS id`,
      [userIds],
    );
    // As a restored backup or a unit of the previous release would leave them: held here, unknown to the ledger, queued by the trigger.
    await db.query(
      `INSERT INTO totp_credentials (user_id, secret_ciphertext, key_id)
       SELECT id, secret_ciphertext, key_id FROM unnest($2::uuid[]) AS id, totp_credentials WHERE user_id = $1`,
      [template, userIds],
    );
    const pods = await Promise.all([0, 1].map(() => startTotpService(config, silent, { now: () => clockMs })));
    try {
      await waitFor(
        async () => {
          const { rows } = await db.query<{ queued: number }>('SELECT count(*)::int AS queued FROM unsettled_accounts WHERE user_id = ANY($1::uuid[])', [userIds]);
          return rows[0]!.queued === 0 ? true : undefined;
        },
        { description: 'the sweeps', timeoutMs: 20_000 },
      );
      const { rows } = await db.query<{ active: number }>(
        `SELECT count(*)::int AS active FROM identity.credentials WHERE user_id = ANY($1::uuid[]) AND kind = 'totp' AND state = 'active'`,
        [userIds],
      );
      expect(rows[0]!.active).toBe(userIds.length);
    } finally {
      await Promise.all(pods.map((pod) => pod.stop()));
    }
  });

  it('refuses a credential stored as a totp unit of the previous release stores it, with a presence mark', async () => {
    const account = await newAccount();
    await expect(
      db.query("INSERT INTO totp_credentials (user_id, secret_ciphertext, key_id, presence_mark) VALUES ($1, '\\x00', 'k', 1)", [account.userId]),
    ).rejects.toThrow(/presence_mark/);
  });
});

describe('account deletion', () => {
  it('removes every trace of a user, and does it again without complaint', async () => {
    const account = await enrolledAccount();
    const openChallenge = await challenge(account.userId);
    const pending = await newAccount();
    const setup = await client.beginSetup({ userId: pending.userId, accountEmail: pending.accountEmail });
    remember([setup.secret, setup.setupToken]);
    await codeOf(client.disable({ ...account, code: wrongCodeFor(account.secret) }));

    for (const userId of [account.userId, pending.userId]) {
      await client.deleteUserData({ userId });
      await client.deleteUserData({ userId });
    }
    expect((await client.getStatus({ userId: account.userId })).enabled).toBe(false);
    const rows = await db.query<{ n: number }>(
      `SELECT ((SELECT count(*) FROM totp_credentials WHERE user_id = $1) +
               (SELECT count(*) FROM backup_codes WHERE user_id = $1))::int AS n`,
      [account.userId],
    );
    expect(rows.rows[0]!.n).toBe(0);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.filter((key) => key.includes(account.userId) || key.includes(pending.userId))).toEqual([]);
    expect(await redis.exists(`${prefix}:totp:challenge:${createHash('sha256').update(openChallenge).digest('base64url')}`)).toBe(0);
    expect(
      await codeOf(client.enable({ ...pending, setupToken: setup.setupToken, code: codeFor(setup.secret) })),
    ).toBe('totp:setup_token_invalid');
  });
});

describe('logs', () => {
  it('carry no secret, code or token', async () => {
    await waitFor(() => (logChunks.join('').includes('totp disabled') ? true : undefined));
    const text = logChunks.join('');
    expect(text).toContain('"msg":"totp enabled"');
    expect(text).toContain('"msg":"login challenge passed"');
    expect(sensitive.size).toBeGreaterThan(50);
    const leaked = [...sensitive].filter((value) =>
      /^\d{6}$/.test(value) ? new RegExp(`(?<!\\d)${value}(?!\\d)`).test(text) : text.includes(value),
    );
    expect(leaked).toEqual([]);
    for (const code of [...sensitive].filter((value) => /^[a-z0-9]{5}-[a-z0-9]{5}$/.test(value))) {
      expect(text).not.toContain(code.replace('-', ''));
    }
  });
});
