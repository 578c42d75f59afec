import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { oidcV1 } from '@latchkey/contracts';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import { startRequestContext } from '@latchkey/grpc-kit';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  testNatsUrl,
  testRedisUrl,
  uniqueName,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../src/config';
import { IDENTITY_SCHEMA, startIdentityService } from '../../src/identity-service';
import { migrate } from '../../src/migrate';
import { findArtifact, findUserGrant, issueArtifacts, saveArtifact, type ArtifactToSave } from '../../src/oidc/oidc-artifacts';

const logger = createLogger({ service: 'identity-oidc-test', level: 'silent' });
const HOUR = 60 * 60 * 1000;

let database: TestDatabase;
let pool: pg.Pool;
let service: Running;
let oidc: TestServiceClient<typeof oidcV1.OidcServiceService>;
const started: { end(): void }[] = [];

function context() {
  const request = startRequestContext({ requestId: randomUUID(), logger, deadline: Date.now() + 5_000 });
  started.push(request);
  return request.context;
}

async function newUser(disabled = false): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO identity.users (id, handle, email, password_hash, email_verified_at, disabled_at) VALUES ($1, $2, $3, NULL, now(), $4)`,
    [id, `u_${id.slice(0, 8)}`, `${id}@example.com`, disabled ? new Date() : null],
  );
  return id;
}

function artifact(kind: string, payload: Record<string, unknown>): ArtifactToSave {
  return { kind, id: randomUUID(), payloadJson: JSON.stringify({ clientId: 'app', ...payload }), expiresAt: new Date(Date.now() + HOUR) };
}

/** A user's grant and one code or refresh token under it, stored. */
async function issued(kind: 'AuthorizationCode' | 'RefreshToken', userId: string) {
  const grant = artifact('Grant', { accountId: userId, openid: { scope: 'openid email' } });
  const source = artifact(kind, { accountId: userId, grantId: grant.id });
  await saveArtifact({ pool }, grant);
  await saveArtifact({ pool }, source);
  return { grant, source };
}

async function kinds(grantId: string): Promise<string[]> {
  const { rows } = await pool.query<{ kind: string }>(
    `SELECT kind FROM identity.oidc_artifacts WHERE grant_id = $1 OR id = $1 ORDER BY kind`,
    [grantId],
  );
  return rows.map((row) => row.kind);
}

async function errorCodeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.code;
}

beforeAll(async () => {
  database = await createTestDatabase('identity_oidc');
  await migrate({ DATABASE_URL: database.url }, logger);
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 4, applicationName: 'identity-oidc-test', onIdleError: () => undefined });
  const prefix = uniqueName('identity_oidc');
  const config = loadIdentityConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    ADMIN_GRPC_PORT: '0',
    METRICS_PORT: '0',
  });
  service = await startIdentityService(config, logger);
  oidc = createTestServiceClient(oidcV1.OidcServiceService, `127.0.0.1:${String(service.readyFields?.grpc_port)}`);
});

afterAll(async () => {
  for (const request of started) request.end();
  oidc?.close();
  await service?.stop();
  await pool?.end();
  await database?.drop();
});

describe('FindArtifact', () => {
  it('answers a token’s grant and account in the same read when asked, and neither when not', async () => {
    const userId = await newUser();
    const { grant, source } = await issued('RefreshToken', userId);

    const found = await findArtifact(pool, { kind: 'RefreshToken', id: source.id, userCode: '', withGrantAndAccount: true });
    expect(found?.payload).toMatchObject({ grantId: grant.id, accountId: userId });
    expect(found?.grantPayload).toMatchObject({ accountId: userId, openid: { scope: 'openid email' } });
    expect(found?.account).toEqual({ userId, email: `${userId}@example.com`, emailVerified: true, handle: `u_${userId.slice(0, 8)}` });

    const bare = await findArtifact(pool, { kind: 'RefreshToken', id: source.id, userCode: '' });
    expect(bare?.grantPayload).toBeUndefined();
    expect(bare?.account).toBeUndefined();
  });

  it('finds a token value as whichever of the kinds asked for it is, the kind asked for first, and never a grant that way', async () => {
    const userId = await newUser();
    const { grant, source } = await issued('RefreshToken', userId);

    const asEither = await findArtifact(pool, { kind: 'AccessToken', id: source.id, userCode: '', otherKinds: ['RefreshToken'] });
    expect(asEither).toMatchObject({ kind: 'RefreshToken', payload: { jti: source.id, grantId: grant.id } });
    expect(await findArtifact(pool, { kind: 'AccessToken', id: source.id, userCode: '' })).toBeUndefined();
    expect(await findArtifact(pool, { kind: 'RefreshToken', id: source.id, userCode: '', otherKinds: ['AccessToken'] })).toMatchObject({ kind: 'RefreshToken' });

    const refused = await errorCodeOf(findArtifact(pool, { kind: 'Grant', id: grant.id, userCode: '', otherKinds: ['AccessToken'] }));
    expect(refused).toBe('validation:invalid_input');
    const overGrpc = await oidc.findArtifact({ kind: 'AccessToken', id: source.id, userCode: '', withGrantAndAccount: true, otherKinds: ['RefreshToken'] });
    expect(overGrpc).toMatchObject({ found: true, kind: 'RefreshToken', account: { userId } });
  });

  it('answers no account for a disabled one, and no grant once the grant is gone', async () => {
    const userId = await newUser(true);
    const { grant, source } = await issued('AuthorizationCode', userId);
    await pool.query(`DELETE FROM identity.oidc_artifacts WHERE kind = 'Grant' AND id = $1`, [grant.id]);

    const found = await findArtifact(pool, { kind: 'AuthorizationCode', id: source.id, userCode: '', withGrantAndAccount: true });
    expect(found?.payload).toMatchObject({ grantId: grant.id });
    expect(found?.grantPayload).toBeUndefined();
    expect(found?.account).toBeUndefined();
  });
});

describe('SaveArtifact', () => {
  it('records the sign-in of the session a code names with the code, and nothing for an account that is gone', async () => {
    const userId = await newUser();
    const sessionId = randomUUID();
    const sessionClient = { backchannelLogoutUri: 'https://app.example/logout', sessionRequired: true, signingAlg: 'EdDSA' };
    await saveArtifact({ pool }, { ...artifact('AuthorizationCode', { accountId: userId, sid: sessionId }), sessionClient });
    const { rows } = await pool.query('SELECT client_id, user_id, backchannel_logout_uri, signing_alg FROM identity.oidc_session_clients WHERE session_id = $1', [
      sessionId,
    ]);
    expect(rows).toEqual([{ client_id: 'app', user_id: userId, backchannel_logout_uri: 'https://app.example/logout', signing_alg: 'EdDSA' }]);

    const gone = randomUUID();
    const refused = await errorCodeOf(saveArtifact({ pool }, { ...artifact('AuthorizationCode', { accountId: gone, sid: gone }), sessionClient }));
    expect(refused).toBe('user:not_found');
    expect((await pool.query('SELECT 1 FROM identity.oidc_session_clients WHERE session_id = $1', [gone])).rowCount).toBe(0);
  });
});

describe('FindUserGrant', () => {
  it('answers the newest grant of the account for the client with its payload and the account when asked', async () => {
    const userId = await newUser();
    const older = artifact('Grant', { accountId: userId, openid: { scope: 'openid' } });
    await saveArtifact({ pool }, older);
    const { grant } = await issued('AuthorizationCode', userId);
    await pool.query(`UPDATE identity.oidc_artifacts SET created_at = created_at - interval '1 minute' WHERE id = $1`, [older.id]);

    const found = await findUserGrant(pool, userId, 'app', true);
    expect(found.grantId).toBe(grant.id);
    expect(found.grantPayload).toMatchObject({ accountId: userId, openid: { scope: 'openid email' } });
    expect(found.account).toEqual({ userId, email: `${userId}@example.com`, emailVerified: true, handle: `u_${userId.slice(0, 8)}` });

    expect(await findUserGrant(pool, userId, 'app')).toEqual({ grantId: grant.id, grantPayload: undefined, account: undefined });
    expect(await findUserGrant(pool, userId, 'another-app', true)).toMatchObject({ grantId: undefined, account: { userId } });
  });

  it('answers the grant but no account for a disabled one, over gRPC too', async () => {
    const userId = await newUser(true);
    const { grant } = await issued('AuthorizationCode', userId);
    const answer = await oidc.findUserGrant({ userId, clientId: 'app', withGrantAndAccount: true });
    expect(answer).toMatchObject({ found: true, grantId: grant.id });
    expect(JSON.parse(answer.grantPayloadJson)).toMatchObject({ accountId: userId });
    expect(answer.account).toBeUndefined();
    expect(await oidc.findUserGrant({ userId: randomUUID(), clientId: 'app', withGrantAndAccount: true })).toMatchObject({ found: false, grantPayloadJson: '' });
  });
});

describe('IssueArtifacts', () => {
  it('consumes a code and saves the tokens it is exchanged for together; the code’s second use saves nothing and revokes the grant', async () => {
    const userId = await newUser();
    const { grant, source } = await issued('AuthorizationCode', userId);
    const first = artifact('AccessToken', { accountId: userId, grantId: grant.id });
    await issueArtifacts({ pool }, { source: { kind: 'AuthorizationCode', id: source.id }, artifacts: [first] }, context());
    expect(await kinds(grant.id)).toEqual(['AccessToken', 'AuthorizationCode', 'Grant']);
    const consumed = await findArtifact(pool, { kind: 'AuthorizationCode', id: source.id, userCode: '' });
    expect(typeof consumed?.payload['consumed']).toBe('number');

    const second = artifact('AccessToken', { accountId: userId, grantId: grant.id });
    const code = await errorCodeOf(issueArtifacts({ pool }, { source: { kind: 'AuthorizationCode', id: source.id }, artifacts: [second] }, context()));
    expect(code).toBe('oidc:token_reused');
    expect(await kinds(grant.id)).toEqual([]);
  });

  it('lets one of two racing uses of a refresh token through: the other is a reuse, which revokes the grant and mails the owner', async () => {
    const userId = await newUser();
    const { grant, source } = await issued('RefreshToken', userId);
    const use = () =>
      issueArtifacts(
        { pool },
        {
          source: { kind: 'RefreshToken', id: source.id },
          artifacts: [artifact('RefreshToken', { accountId: userId, grantId: grant.id }), artifact('AccessToken', { accountId: userId, grantId: grant.id })],
        },
        context(),
      );
    const outcomes = await Promise.allSettled([use(), use()]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused && (refused.reason as AppError).code).toBe('oidc:token_reused');
    expect(await kinds(grant.id)).toEqual([]);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM identity.outbox WHERE payload->>'to' = $1 AND payload->>'notice' = 'oidc_token_reused'`,
      [`${userId}@example.com`],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('refuses a source that is gone, and an account that is gone, saving nothing', async () => {
    const userId = await newUser();
    const { grant } = await issued('AuthorizationCode', userId);
    const token = artifact('AccessToken', { accountId: userId, grantId: grant.id });
    expect(await errorCodeOf(issueArtifacts({ pool }, { source: { kind: 'AuthorizationCode', id: randomUUID() }, artifacts: [token] }, context()))).toBe(
      'oidc:token_reused',
    );
    const stranger = artifact('AccessToken', { accountId: randomUUID(), grantId: grant.id });
    expect(await errorCodeOf(issueArtifacts({ pool }, { artifacts: [stranger] }, context()))).toBe('user:not_found');
    expect(await kinds(grant.id)).toEqual(['AuthorizationCode', 'Grant']);
  });
});

/** A value as the provider makes its codes and tokens: 256 random bits, base64url. */
function tokenValue(): string {
  return randomBytes(32).toString('base64url');
}

/** A user code as the provider makes them (base-20, normalized: no dash, upper case). */
function userCodeValue(): string {
  const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';
  return Array.from(randomBytes(8), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** A provider payload for a model, carrying its own value as jti, as oidc-provider saves one. */
function providerPayload(kind: string, id: string, fields: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({ iat: now, exp: now + 3600, jti: id, kind, clientId: 'tv', ...fields });
}

function toSave(kind: string, id: string, fields: Record<string, unknown>): oidcV1.SaveArtifactRequest {
  return { kind, id, payloadJson: providerPayload(kind, id, fields), expiresAt: new Date(Date.now() + HOUR) };
}

/** A grant of the account for the client 'tv', saved through oidc.v1. */
async function savedGrant(userId: string): Promise<string> {
  const grantId = tokenValue();
  await oidc.saveArtifact(toSave('Grant', grantId, { accountId: userId, openid: { scope: 'openid email offline_access' } }));
  return grantId;
}

/** A device code waiting for its person, saved through oidc.v1 as the device authorization endpoint saves it. */
async function waitingDevice(): Promise<{ device: string; userCode: string }> {
  const device = tokenValue();
  const userCode = userCodeValue();
  await oidc.saveArtifact(toSave('DeviceCode', device, { userCode, params: { client_id: 'tv', scope: 'openid email' }, deviceInfo: { ip: '192.0.2.1' } }));
  return { device, userCode };
}

async function payloadOf(kind: string, id: string): Promise<Record<string, unknown> | undefined> {
  const found = await oidc.findArtifact({ kind, id, userCode: '', withGrantAndAccount: false, otherKinds: [] });
  return found.found ? (JSON.parse(found.payloadJson) as Record<string, unknown>) : undefined;
}

function approval(userCode: string, userId: string, grantId: string): oidcV1.ApproveDeviceCodeRequest {
  return {
    userCode,
    userId,
    grantId,
    scope: 'openid email',
    sessionId: randomBytes(16).toString('base64url'),
    amr: ['pwd'],
    acr: 'urn:latchkey:acr:sfa',
    authTime: new Date(Date.now() - 60_000),
    sessionClient: { backchannelLogoutUri: 'https://tv.example/logout', sessionRequired: true, signingAlg: 'EdDSA' },
    claimsJson: '',
  };
}

describe('what is kept of codes and tokens (docs/security.md, "What is stored hashed, sealed or plain")', () => {
  it('keeps no code, token or user code in any column or payload field, and finds nothing by what it keeps', async () => {
    const userId = await newUser();
    const grantId = await savedGrant(userId);
    const code = tokenValue();
    const access = tokenValue();
    const refresh = tokenValue();
    const sid = randomBytes(16).toString('base64url');
    await oidc.saveArtifact(toSave('AuthorizationCode', code, { accountId: userId, grantId, sid, scope: 'openid email offline_access' }));
    await oidc.issueArtifacts({
      source: { kind: 'AuthorizationCode', id: code },
      artifacts: [
        toSave('AccessToken', access, { accountId: userId, grantId, sessionUid: sid, scope: 'openid email offline_access' }),
        toSave('RefreshToken', refresh, { accountId: userId, grantId, sessionUid: sid, scope: 'openid email offline_access', rotations: 0 }),
      ],
    });
    const { device, userCode } = await waitingDevice();
    const values = { code, access, refresh, device, userCode };

    // What a dump shows: every row of the table, each as one text with all its columns and its payload.
    const { rows } = await pool.query<{ kind: string; id: string; user_code: string | null; row: string }>(
      'SELECT kind, id, user_code, row_to_json(a)::text AS row FROM identity.oidc_artifacts a',
    );
    const dump = rows.map((row) => row.row).join('\n');
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const [name, value] of Object.entries(values)) expect({ name, found: dump.toLowerCase().includes(value.toLowerCase()) }).toEqual({ name, found: false });

    // The values themselves still work: each is found by what the provider presents.
    expect(await payloadOf('AccessToken', access)).toMatchObject({ jti: access, accountId: userId, grantId });
    expect(await payloadOf('RefreshToken', refresh)).toMatchObject({ jti: refresh, grantId });
    expect(await payloadOf('AuthorizationCode', code)).toMatchObject({ jti: code, consumed: expect.any(Number) });
    expect(await payloadOf('DeviceCode', device)).toMatchObject({ jti: device, clientId: 'tv' });
    const byUserCode = await oidc.findArtifact({ kind: 'DeviceCode', id: '', userCode, withGrantAndAccount: false, otherKinds: [] });
    expect(JSON.parse(byUserCode.payloadJson)).toMatchObject({ userCode, clientId: 'tv' });
    expect(JSON.parse(byUserCode.payloadJson)).not.toHaveProperty('jti');

    // What the table holds, presented as a code, token or user code, finds nothing.
    const kept = (kind: string) => rows.find((row) => row.kind === kind && row.row.includes(grantId) === (kind !== 'DeviceCode'))!;
    for (const kind of ['AuthorizationCode', 'AccessToken', 'RefreshToken']) {
      expect({ kind, found: (await payloadOf(kind, kept(kind).id)) !== undefined }).toEqual({ kind, found: false });
    }
    const storedDevice = rows.find((row) => row.kind === 'DeviceCode' && row.user_code !== null && !row.row.includes('accountId'))!;
    expect(await payloadOf('DeviceCode', storedDevice.id)).toBeUndefined();
    expect((await oidc.findArtifact({ kind: 'DeviceCode', id: '', userCode: storedDevice.user_code!, withGrantAndAccount: false, otherKinds: [] })).found).toBe(false);
    expect((await errorCodeOf(oidc.approveDeviceCode(approval(storedDevice.user_code!, userId, grantId))))).toBe('oidc:user_code_invalid');
    expect(await errorCodeOf(oidc.issueArtifacts({ source: { kind: 'RefreshToken', id: kept('RefreshToken').id }, artifacts: [] }))).toBe('oidc:token_reused');
    // And presenting it changed nothing: the refresh token it was made from still works once.
    await oidc.issueArtifacts({ source: { kind: 'RefreshToken', id: refresh }, artifacts: [] });
  });
});

describe('the device flow (ApproveDeviceCode, DenyDeviceCode)', () => {
  it('approves the device code waiting for a user code for the account, under its grant, and records the session with the client', async () => {
    const userId = await newUser();
    const grantId = await savedGrant(userId);
    const { device, userCode } = await waitingDevice();
    const approved = approval(userCode, userId, grantId);
    await oidc.approveDeviceCode(approved);

    expect(await payloadOf('DeviceCode', device)).toMatchObject({
      accountId: userId,
      grantId,
      scope: 'openid email',
      sid: approved.sessionId,
      amr: ['pwd'],
      acr: 'urn:latchkey:acr:sfa',
      authTime: Math.floor(approved.authTime!.getTime() / 1000),
    });
    expect(await payloadOf('DeviceCode', device)).not.toHaveProperty('claims');
    const { rows } = await pool.query('SELECT client_id, user_id, backchannel_logout_uri FROM identity.oidc_session_clients WHERE session_id = $1', [
      approved.sessionId,
    ]);
    expect(rows).toEqual([{ client_id: 'tv', user_id: userId, backchannel_logout_uri: 'https://tv.example/logout' }]);
    // A code is approved once, and no longer refused.
    expect(await errorCodeOf(oidc.approveDeviceCode(approval(userCode, userId, grantId)))).toBe('oidc:user_code_invalid');
    await oidc.denyDeviceCode({ userCode });
    expect(await payloadOf('DeviceCode', device)).not.toHaveProperty('error');
  });

  it('gives the device code the claims request it names, as a code keeps one, and refuses one that is no JSON object', async () => {
    const userId = await newUser();
    const grantId = await savedGrant(userId);
    const { device, userCode } = await waitingDevice();
    const claims = { id_token: { org_id: { value: '0190a4c2-7d1e-7000-8000-000000000001' } } };
    for (const claimsJson of ['[]', 'null', '{"id_token":', JSON.stringify({ id_token: { org_id: { value: 'x'.repeat(4096) } } })]) {
      expect(await errorCodeOf(oidc.approveDeviceCode({ ...approval(userCode, userId, grantId), claimsJson }))).toBe('validation:invalid_input');
    }
    expect(await payloadOf('DeviceCode', device)).not.toHaveProperty('accountId');
    await oidc.approveDeviceCode({ ...approval(userCode, userId, grantId), claimsJson: JSON.stringify(claims) });
    expect(await payloadOf('DeviceCode', device)).toMatchObject({ accountId: userId, claims });
  });

  it('refuses to hand a device another account’s consent, or a consent for another client', async () => {
    const userId = await newUser();
    const stranger = await newUser();
    const strangersGrant = await savedGrant(stranger);
    const otherClientsGrant = tokenValue();
    await oidc.saveArtifact({ ...toSave('Grant', otherClientsGrant, { accountId: userId }), payloadJson: providerPayload('Grant', otherClientsGrant, { accountId: userId, clientId: 'web-app' }) });
    const { device, userCode } = await waitingDevice();

    expect(await errorCodeOf(oidc.approveDeviceCode(approval(userCode, userId, strangersGrant)))).toBe('validation:invalid_input');
    expect(await errorCodeOf(oidc.approveDeviceCode(approval(userCode, userId, otherClientsGrant)))).toBe('validation:invalid_input');
    expect(await payloadOf('DeviceCode', device)).not.toHaveProperty('accountId');
    // The device still waits, for its person.
    await oidc.approveDeviceCode(approval(userCode, userId, await savedGrant(userId)));
    expect(await payloadOf('DeviceCode', device)).toMatchObject({ accountId: userId });
  });

  it('denies the device code waiting for a user code: the device hears access_denied and no one can approve it after', async () => {
    const userId = await newUser();
    const { device, userCode } = await waitingDevice();
    await oidc.denyDeviceCode({ userCode });
    expect(await payloadOf('DeviceCode', device)).toMatchObject({ error: 'access_denied' });
    expect(await errorCodeOf(oidc.approveDeviceCode(approval(userCode, userId, await savedGrant(userId))))).toBe('oidc:user_code_invalid');
    // A user code nothing waits for is no error.
    await oidc.denyDeviceCode({ userCode: userCodeValue() });
  });
});
