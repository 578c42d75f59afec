import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { identityV1, oauthV1, passkeysV1 } from '@latchkey/contracts';
import { settleAccounts } from '@latchkey/credential-ledger';
import { AppError } from '@latchkey/errors';
import type { Running } from '@latchkey/runtime';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  createTestServiceClient,
  testNatsUrl,
  testRedisUrl,
  testRequestContext,
  uniqueName,
  type TestDatabase,
  type TestServiceClient,
} from '@latchkey/test-kit';
import { loadIdentityConfig } from '../../../identity/src/config';
import { startIdentityService } from '../../../identity/src/identity-service';
import { migrate as migrateIdentity } from '../../../identity/src/migrate';
import { connectionLedger } from '../../../oauth/src/connection-ledger';
import { loadOAuthConfig } from '../../../oauth/src/config';
import { startOAuthService } from '../../../oauth/src/oauth-service';
import { migrate as migrateOAuth } from '../../../oauth/src/migrate';
import { loadPasskeysConfig } from '../../src/config';
import { startPasskeysService } from '../../src/passkeys-service';
import { migrate as migratePasskeys } from '../../src/migrate';
import { passkeyLedger } from '../../src/passkey-ledger';

/**
 * Issue 24: removals of an account's ways in, made at once in passkeys and
 * in oauth, straight to their gRPC APIs (no gateway between), never leave
 * the account without one. identity.v1's credential ledger counts them one
 * after the other.
 */

const { CredentialKind } = identityV1;
const ROUNDS = 12;

let database: TestDatabase;
let db: pg.Pool;
const running: Running[] = [];
let identity: TestServiceClient<typeof identityV1.IdentityServiceService>;
let oauth: TestServiceClient<typeof oauthV1.OAuthServiceService>;
let passkeys: TestServiceClient<typeof passkeysV1.PasskeysServiceService>;

const addressOf = (service: Running) => `127.0.0.1:${String(service.readyFields?.grpc_port)}`;

beforeAll(async () => {
  database = await createTestDatabase('last_way_in');
  const prefix = uniqueName('last_way_in');
  const shared = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '4',
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    GRPC_PORT: '0',
    METRICS_PORT: '0',
  };
  const silent = createLogger({ service: 'last-way-in', level: 'silent' });
  const identityConfig = loadIdentityConfig({ ...shared, ADMIN_GRPC_PORT: '0' });
  await migrateIdentity(identityConfig, silent);
  await migrateOAuth({ DATABASE_URL: database.url }, silent);
  await migratePasskeys({ DATABASE_URL: database.url }, silent);
  const identityService = await startIdentityService(identityConfig, silent);
  running.push(identityService);
  const IDENTITY_GRPC_ADDRESS = addressOf(identityService);
  const oauthService = await startOAuthService(loadOAuthConfig({ ...shared, IDENTITY_GRPC_ADDRESS }), silent);
  running.push(oauthService);
  const passkeysService = await startPasskeysService(loadPasskeysConfig({ ...shared, IDENTITY_GRPC_ADDRESS }), silent);
  running.push(passkeysService);
  identity = createTestServiceClient(identityV1.IdentityServiceService, IDENTITY_GRPC_ADDRESS);
  oauth = createTestServiceClient(oauthV1.OAuthServiceService, addressOf(oauthService));
  passkeys = createTestServiceClient(passkeysV1.PasskeysServiceService, addressOf(passkeysService));
  db = new pg.Pool({ connectionString: database.url, max: 2 });
}, 60_000);

afterAll(async () => {
  identity?.close();
  oauth?.close();
  passkeys?.close();
  for (const service of running.reverse()) await service.stop();
  await db?.end();
  await database?.drop();
});

/**
 * A provider sign-up's account (no password) with two passkeys and two
 * provider connections, stored as the units store them and settled in the
 * ledger as they settle them.
 */
async function accountWithFourWaysIn(): Promise<{ userId: string; passkeyIds: string[] }> {
  const { user } = await identity.createVerifiedUser({ handle: uniqueName('way').slice(0, 32), email: `${randomUUID()}@example.com` });
  const userId = user!.id;
  const passkeyIds: string[] = [];
  for (const name of ['laptop', 'phone']) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO passkeys.passkeys (id, user_id, credential_id, public_key, aaguid, backup_eligible, backed_up, name)
       VALUES ($1, $2, $3, $4, '00000000-0000-0000-0000-000000000000', true, true, $5) RETURNING id`,
      [randomUUID(), userId, randomBytes(32), randomBytes(77), name],
    );
    passkeyIds.push(rows[0]!.id);
  }
  for (const provider of ['google', 'github']) {
    await db.query(`INSERT INTO oauth.user_oauth_connections (provider, provider_user_id, user_id, email) VALUES ($1, $2, $3, $4)`, [
      provider,
      randomUUID(),
      userId,
      user!.email,
    ]);
  }
  for (const owner of [passkeyLedger, connectionLedger]) await settleAccounts({ pool: db, identity }, owner, [userId], testRequestContext());
  return { userId, passkeyIds };
}

/** What still signs in to the account, as the owning units keep it. */
async function waysIn(userId: string): Promise<string[]> {
  const { rows } = await db.query<{ way: string }>(
    `SELECT 'passkey:' || id AS way FROM passkeys.passkeys WHERE user_id = $1
     UNION ALL SELECT 'provider:' || provider FROM oauth.user_oauth_connections WHERE user_id = $1`,
    [userId],
  );
  return rows.map((row) => row.way).sort();
}

/** The account's ways in as identity's ledger holds them, whatever their state. */
async function ledgerOf(userId: string): Promise<string[]> {
  const { rows } = await db.query<{ way: string }>(`SELECT kind || ':' || reference AS way FROM identity.credentials WHERE user_id = $1 ORDER BY 1`, [userId]);
  return rows.map((row) => row.way);
}

/** The account's credentials not active in the ledger: being added or removed. */
async function unsettledOf(userId: string): Promise<string[]> {
  const { rows } = await db.query<{ way: string }>(
    `SELECT kind || ':' || reference || ':' || state AS way FROM identity.credentials WHERE user_id = $1 AND state <> 'active' ORDER BY 1`,
    [userId],
  );
  return rows.map((row) => row.way);
}

async function outcomeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'removed';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe('removing ways in at once, in passkeys and in oauth', () => {
  it('never leaves an account without one, and the ledger says what is left', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const { userId, passkeyIds } = await accountWithFourWaysIn();
      const removals = [
        ...passkeyIds.map((passkeyId) => passkeys.deletePasskey({ userId, passkeyId })),
        oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GOOGLE }),
        oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GITHUB }),
      ];
      const outcomes = await Promise.all(removals.map(outcomeOf));
      const left = await waysIn(userId);
      expect({ round, left: left.length }).toEqual({ round, left: 1 });
      expect(outcomes.filter((outcome) => outcome === 'removed')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome !== 'removed').sort()).toEqual([
        left[0]!.startsWith('passkey:') ? 'passkey:last_login_method' : 'oauth:last_login_method',
      ]);
      expect(await ledgerOf(userId)).toEqual(left);
    }
  }, 120_000);

  it('counts a method whose removal failed in its unit again, and the account keeps it', async () => {
    const { userId, passkeyIds } = await accountWithFourWaysIn();
    // The passkeys table refuses deletions for a while: the unit's own step fails after identity began the removal.
    await db.query(`CREATE OR REPLACE FUNCTION passkeys.refuse_deletion() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
    await db.query('CREATE TRIGGER refuse_deletion BEFORE DELETE ON passkeys.passkeys FOR EACH ROW EXECUTE FUNCTION passkeys.refuse_deletion()');
    try {
      expect(await outcomeOf(passkeys.deletePasskey({ userId, passkeyId: passkeyIds[0]! }))).not.toBe('removed');
    } finally {
      await db.query('DROP TRIGGER refuse_deletion ON passkeys.passkeys');
    }
    expect(await waysIn(userId)).toHaveLength(4);
    // Settled from what the unit still holds: the removal is rolled back.
    expect(await unsettledOf(userId)).toEqual([]);
    await oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GOOGLE });
    await oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GITHUB });
    await passkeys.deletePasskey({ userId, passkeyId: passkeyIds[1]! });
    // The one that failed to go is the last way in now, and counted as such.
    expect(await outcomeOf(passkeys.deletePasskey({ userId, passkeyId: passkeyIds[0]! }))).toBe('passkey:last_login_method');
    expect(await ledgerOf(userId)).toEqual([`passkey:${passkeyIds[0]!}`]);
  });

  it('counts a credential whose removal was reserved and never settled as gone, so that it cannot let the last one go', async () => {
    const { userId, passkeyIds } = await accountWithFourWaysIn();
    const passkey = (reference: string) => ({ userId, kind: CredentialKind.CREDENTIAL_KIND_PASSKEY, reference });
    // A unit that died after reserving the removal of both passkeys.
    await identity.reserveCredentialRemoval(passkey(passkeyIds[0]!));
    await identity.reserveCredentialRemoval(passkey(passkeyIds[1]!));
    await oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GOOGLE });
    expect(await outcomeOf(oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GITHUB }))).toBe('oauth:last_login_method');
    // Still held, and still working: the view counts them.
    expect(await ledgerOf(userId)).toEqual([...passkeyIds.map((id) => `passkey:${id}`), 'provider:github'].sort());
    expect((await identity.getUser({ userId })).user!.passkeysCount).toBe(2);
    // Once the passkeys unit settles the account, they count again.
    await settleAccounts({ pool: db, identity }, passkeyLedger, [userId], testRequestContext());
    expect(await unsettledOf(userId)).toEqual([]);
    await oauth.unlinkProvider({ userId, provider: oauthV1.Provider.PROVIDER_GITHUB });
  });
});
