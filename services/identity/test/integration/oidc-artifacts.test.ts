import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import { startRequestContext } from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { IDENTITY_SCHEMA } from '../../src/identity-service';
import { migrate } from '../../src/migrate';
import { findArtifact, issueArtifacts, saveArtifact, type ArtifactToSave } from '../../src/oidc/oidc-artifacts';

const logger = createLogger({ service: 'identity-oidc-test', level: 'silent' });
const HOUR = 60 * 60 * 1000;

let database: TestDatabase;
let pool: pg.Pool;
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
  await saveArtifact({ pool }, grant, context());
  await saveArtifact({ pool }, source, context());
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
});

afterAll(async () => {
  for (const request of started) request.end();
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
