import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { createPool } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import { startRequestContext } from '@latchkey/grpc-kit';
import { migrateServiceSchema } from '@latchkey/outbox';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { IDENTITY_SCHEMA } from '../../src/identity-service';
import { migrate } from '../../src/migrate';
import { consumeArtifact, findArtifact } from '../../src/oidc/oidc-artifacts';

/**
 * Migration 011 (docs/operations.md, "The OpenID Provider"): the codes and
 * tokens an earlier version kept in clear are converted to their hashes,
 * still usable by their value, and the table refuses a value in clear after.
 */
const logger = createLogger({ service: 'identity-migration-test', level: 'silent' });
const MIGRATIONS = path.resolve(__dirname, '../../migrations');
const HASHING_MIGRATION = '011_openid_tokens_hashed.sql';

let database: TestDatabase;
let pool: pg.Pool;
let earlier: string;
const userId = randomUUID();
const value = () => randomBytes(32).toString('base64url');
const grant = value();
const code = value();
const access = value();
const usedRefresh = value();
const expired = value();
const device = value();
const userCode = 'BCDFGHJK';

/** Inserts a row as the previous version wrote it: the value as id, and again as jti in the payload. */
async function oldRow(kind: string, id: string, fields: Record<string, unknown>, columns: { userCode?: string; expiresAt?: Date; consumed?: boolean } = {}) {
  const payload = { jti: id, kind, clientId: 'tv', ...fields };
  await pool.query(
    `INSERT INTO identity.oidc_artifacts (kind, id, payload, user_id, client_id, grant_id, user_code, expires_at, consumed_at)
     VALUES ($1, $2, $3, $4, 'tv', $5, $6, $7, $8)`,
    [
      kind,
      id,
      payload,
      typeof fields['accountId'] === 'string' ? fields['accountId'] : null,
      typeof fields['grantId'] === 'string' ? fields['grantId'] : null,
      columns.userCode ?? null,
      columns.expiresAt ?? new Date(Date.now() + 3_600_000),
      columns.consumed ? new Date() : null,
    ],
  );
}

beforeAll(async () => {
  database = await createTestDatabase('identity_migration');
  // The schema as the version before the migration left it.
  earlier = await mkdtemp(path.join(tmpdir(), 'identity-migrations-'));
  for (const file of await readdir(MIGRATIONS)) if (file < HASHING_MIGRATION) await copyFile(path.join(MIGRATIONS, file), path.join(earlier, file));
  await migrateServiceSchema({ databaseUrl: database.url, schema: IDENTITY_SCHEMA, directory: earlier, logger });
  pool = createPool({ connectionString: database.url, schema: IDENTITY_SCHEMA, max: 2, applicationName: 'identity-migration-test', onIdleError: () => undefined });

  await pool.query(`INSERT INTO identity.users (id, handle, email, email_verified_at) VALUES ($1, 'tv_owner', 'tv.owner@example.com', now())`, [userId]);
  await oldRow('Grant', grant, { accountId: userId, openid: { scope: 'openid offline_access' } });
  await oldRow('AuthorizationCode', code, { accountId: userId, grantId: grant });
  await oldRow('AccessToken', access, { accountId: userId, grantId: grant });
  await oldRow('RefreshToken', usedRefresh, { accountId: userId, grantId: grant }, { consumed: true });
  await oldRow('AccessToken', expired, { accountId: userId, grantId: grant }, { expiresAt: new Date(Date.now() - 60_000) });
  await oldRow('DeviceCode', device, { userCode, params: { client_id: 'tv' } }, { userCode });

  await migrate({ DATABASE_URL: database.url }, logger);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
  if (earlier) await rm(earlier, { recursive: true, force: true });
});

describe('migration 011: OpenID codes and tokens stored hashed', () => {
  it('leaves no code, token or user code in clear in any row', async () => {
    const { rows } = await pool.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM identity.oidc_artifacts a');
    const dump = rows.map((row) => row.row).join('\n');
    for (const [name, secret] of Object.entries({ code, access, usedRefresh, expired, device, userCode })) {
      expect({ name, found: dump.includes(secret) }).toEqual({ name, found: false });
    }
  });

  it('keeps the live ones usable by their value, a used refresh token still used, and drops the expired', async () => {
    expect((await findArtifact(pool, { kind: 'AuthorizationCode', id: code, userCode: '' }))?.payload).toMatchObject({ jti: code, grantId: grant });
    expect((await findArtifact(pool, { kind: 'AccessToken', id: access, userCode: '' }))?.payload).toMatchObject({ jti: access, accountId: userId });
    expect((await findArtifact(pool, { kind: 'DeviceCode', id: '', userCode }))?.payload).toMatchObject({ userCode, clientId: 'tv' });
    expect((await findArtifact(pool, { kind: 'DeviceCode', id: device, userCode: '' }))?.payload).toMatchObject({ jti: device });
    // A grant id is no secret: it stays, and its tokens still name it.
    expect((await findArtifact(pool, { kind: 'Grant', id: grant, userCode: '' }))?.payload).toMatchObject({ jti: grant, accountId: userId });

    const request = startRequestContext({ requestId: randomUUID(), logger, deadline: Date.now() + 5_000 });
    try {
      const reuse = await consumeArtifact({ pool }, { kind: 'RefreshToken', id: usedRefresh }, request.context).catch((error: unknown) => error);
      expect(reuse).toBeInstanceOf(AppError);
      expect((reuse as AppError).code).toBe('oidc:token_reused');
    } finally {
      request.end();
    }
    const { rows } = await pool.query(`SELECT 1 FROM identity.oidc_artifacts WHERE expires_at < now()`);
    expect(rows).toEqual([]);
  });

  it('refuses a code, token or user code written in clear afterwards, as an identity of the previous version would', async () => {
    const refused = (write: Promise<unknown>) => write.then(() => 'stored', (error: { code?: string }) => error.code);
    expect(await refused(oldRow('AccessToken', value(), { accountId: userId }))).toBe('23514');
    const clearUserCode = pool.query(
      `INSERT INTO identity.oidc_artifacts (kind, id, payload, client_id, user_code, expires_at)
       VALUES ('DeviceCode', $1, '{"clientId": "tv"}', 'tv', 'CDFGHJKL', now() + interval '10 minutes')`,
      [randomBytes(32).toString('hex')],
    );
    expect(await refused(clearUserCode)).toBe('23514');
    // A grant is stored as it always was.
    expect(await refused(oldRow('Grant', value(), { accountId: userId }))).toBe('stored');
  });
});
