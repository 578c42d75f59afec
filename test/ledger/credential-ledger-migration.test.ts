import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { identityV1 } from '@latchkey/contracts';
import { sweepLedger } from '@latchkey/credential-ledger';
import { migrateServiceSchema } from '@latchkey/outbox';
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
import { loadIdentityConfig } from '../../services/identity/src/config';
import { startIdentityService } from '../../services/identity/src/identity-service';
import { migrate as migrateIdentity } from '../../services/identity/src/migrate';
import { issueToken } from '../../services/identity/src/one-time-tokens';
import { connectionLedger } from '../../services/oauth/src/connection-ledger';
import { loadOAuthConfig } from '../../services/oauth/src/config';
import { migrate as migrateOAuth } from '../../services/oauth/src/migrate';
import { startOAuthService } from '../../services/oauth/src/oauth-service';
import { loadPasskeysConfig } from '../../services/passkeys/src/config';
import { migrate as migratePasskeys } from '../../services/passkeys/src/migrate';
import { passkeyLedger } from '../../services/passkeys/src/passkey-ledger';
import { startPasskeysService } from '../../services/passkeys/src/passkeys-service';
import { loadTotpConfig } from '../../services/totp/src/config';
import { migrate as migrateTotp } from '../../services/totp/src/migrate';
import { totpLedger } from '../../services/totp/src/totp-ledger';
import { startTotpService } from '../../services/totp/src/totp-service';

/**
 * Issue 29: the credential ledger begins from what the release before left
 * (its ledger of sign-in methods, its TOTP presence marks and census, the
 * units' rows) on a database with data, errs on the safe side until each
 * unit has settled it, and then holds exactly what the units hold. A unit
 * of the release before, still running during the rollout or rolled back
 * alone, writes the way it did (its statements, as that release's code
 * sends them); the ledger stays on the safe side and is repaired once the
 * unit is current again.
 */

const logger = createLogger({ service: 'ledger-migration-test', level: 'silent' });
const services = ['identity', 'passkeys', 'oauth', 'totp'] as const;
/** The first migration of this release, per unit: the release before ran those before it. */
const FIRST_OF_THIS_RELEASE: Record<(typeof services)[number], string> = {
  identity: '014_organisations.sql',
  passkeys: '005_credential_ledger.sql',
  oauth: '004_credential_ledger.sql',
  totp: '003_credential_ledger.sql',
};

/** Brings every unit's schema to where the release before left it. */
async function migrateAsReleaseBefore(databaseUrl: string): Promise<void> {
  for (const unit of services) {
    const folder = path.resolve(__dirname, `../../services/${unit}/migrations`);
    const earlier = await mkdtemp(path.join(tmpdir(), `${unit}-migrations-`));
    try {
      for (const file of await readdir(folder)) if (file < FIRST_OF_THIS_RELEASE[unit]) await copyFile(path.join(folder, file), path.join(earlier, file));
      await migrateServiceSchema({ databaseUrl, schema: unit, directory: earlier, logger });
    } finally {
      await rm(earlier, { recursive: true, force: true });
    }
  }
}

async function migrateThisRelease(databaseUrl: string): Promise<void> {
  await migrateIdentity({ DATABASE_URL: databaseUrl }, logger);
  await migratePasskeys({ DATABASE_URL: databaseUrl }, logger);
  await migrateOAuth({ DATABASE_URL: databaseUrl }, logger);
  await migrateTotp({ DATABASE_URL: databaseUrl }, logger);
}

/** The units of this release on one database, their sweeps running. */
interface Release {
  readonly identity: TestServiceClient<typeof identityV1.IdentityServiceService>;
  readonly db: pg.Pool;
  stop(): Promise<void>;
}

async function startRelease(database: TestDatabase): Promise<Release> {
  const prefix = uniqueName('ledger_migration');
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
  const running: Running[] = [await startIdentityService(loadIdentityConfig({ ...shared, ADMIN_GRPC_PORT: '0' }), logger)];
  const IDENTITY_GRPC_ADDRESS = `127.0.0.1:${String(running[0]!.readyFields?.grpc_port)}`;
  running.push(await startPasskeysService(loadPasskeysConfig({ ...shared, IDENTITY_GRPC_ADDRESS }), logger));
  running.push(await startOAuthService(loadOAuthConfig({ ...shared, IDENTITY_GRPC_ADDRESS }), logger));
  running.push(
    await startTotpService(loadTotpConfig({ ...shared, IDENTITY_GRPC_ADDRESS, TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64') }), logger),
  );
  const identity = createTestServiceClient(identityV1.IdentityServiceService, IDENTITY_GRPC_ADDRESS);
  const db = new pg.Pool({ connectionString: database.url, max: 4 });
  return {
    identity,
    db,
    async stop() {
      identity.close();
      for (const service of running.reverse()) await service.stop();
      await db.end();
    },
  };
}

/** The account's credentials in the ledger, `kind:reference:state`. */
async function ledgerOf(db: pg.Pool | pg.Client, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ entry: string }>(
    `SELECT kind || ':' || reference || ':' || state AS entry FROM identity.credentials WHERE user_id = $1 ORDER BY kind, reference`,
    [userId],
  );
  return rows.map((row) => row.entry);
}

/** What the units themselves hold for the account, as the ledger names it (all active once settled). */
async function heldBy(db: pg.Pool, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ entry: string }>(
    `SELECT 'password::active' AS entry FROM identity.users WHERE id = $1 AND password_hash IS NOT NULL
     UNION ALL SELECT 'passkey:' || id || ':active' FROM passkeys.passkeys WHERE user_id = $1
     UNION ALL SELECT 'provider:' || provider || ':active' FROM oauth.user_oauth_connections WHERE user_id = $1
     UNION ALL SELECT 'totp::active' FROM totp.totp_credentials WHERE user_id = $1
     ORDER BY 1`,
    [userId],
  );
  return rows.map((row) => row.entry);
}

/** Waits until every unit has settled every account its migration queued. */
async function settled(db: pg.Pool): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await db.query<{ left: number }>(
        `SELECT (SELECT count(*) FROM passkeys.unsettled_accounts) + (SELECT count(*) FROM oauth.unsettled_accounts)
              + (SELECT count(*) FROM totp.unsettled_accounts) + (SELECT count(*) FROM identity.credentials WHERE state <> 'active') AS left`,
      );
      return Number(rows[0]!.left) === 0 ? true : undefined;
    },
    { description: 'the sweeps to settle every account', timeoutMs: 20_000 },
  );
}

/** Accounts as the release before left them, with their units' rows and its ledger. */
async function seedReleaseBefore(db: pg.Client, census: 'complete' | 'not yet') {
  const account = async (password: boolean) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO identity.users (id, handle, email, password_hash, password_set_at, email_verified_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $4::text IS NOT NULL THEN now() - interval '400 days' END, now() - interval '400 days')`,
      [id, `u_${id.slice(0, 8)}`, `${id}@example.com`, password ? '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo' : null],
    );
    if (password) await db.query(`INSERT INTO identity.sign_in_methods (user_id, kind, reference, added_at) VALUES ($1, 'password', '', now() - interval '400 days')`, [id]);
    return id;
  };
  const passkey = async (userId: string, listed: boolean, removalBegun = false) => {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO passkeys.passkeys (user_id, credential_id, public_key, aaguid, backup_eligible, backed_up, name, created_at, listed_at)
       VALUES ($1, $2, $3, '00000000-0000-0000-0000-000000000000', true, true, 'key', now() - interval '200 days', CASE WHEN $4 THEN now() END) RETURNING id`,
      [userId, randomBytes(32), randomBytes(77), listed],
    );
    if (listed) {
      await db.query(
        `INSERT INTO identity.sign_in_methods (user_id, kind, reference, added_at, removal_begun_at) VALUES ($1, 'passkey', $2, now() - interval '200 days', CASE WHEN $3 THEN now() END)`,
        [userId, rows[0]!.id, removalBegun],
      );
    }
    return rows[0]!.id;
  };
  const connection = async (userId: string, provider: string, createdAccount: boolean) => {
    await db.query(
      `INSERT INTO oauth.user_oauth_connections (provider, provider_user_id, user_id, email, created_account, linked_at, listed_at)
       VALUES ($1, $2, $3, $4, $5, now() - interval '300 days', now())`,
      [provider, randomUUID(), userId, `${userId}@example.com`, createdAccount],
    );
    await db.query(`INSERT INTO identity.sign_in_methods (user_id, kind, reference, added_at) VALUES ($1, 'provider', $2, now() - interval '300 days')`, [
      userId,
      provider,
    ]);
  };
  const totp = async (userId: string, marked: boolean) => {
    await db.query(`INSERT INTO totp.totp_credentials (user_id, secret_ciphertext, key_id, presence_mark) VALUES ($1, '\\x00', 'k', $2)`, [userId, marked ? 1 : 0]);
    if (marked) await db.query('UPDATE identity.users SET totp_possible = true, totp_mark = 1 WHERE id = $1', [userId]);
  };

  // A password, two passkeys (one whose removal began and never finished), Google, and TOTP.
  const full = await account(true);
  const passkeys = [await passkey(full, true), await passkey(full, true, true)];
  await connection(full, 'google', false);
  await totp(full, census === 'complete');
  // Made by signing up with GitHub; a passkey whose listing failed, which the previous ledger lacks.
  const provider = await account(false);
  await connection(provider, 'github', true);
  const unlisted = await passkey(provider, false);
  // A password, and TOTP marked possible though it was turned off (its unmark failed).
  const stale = await account(true);
  await db.query('UPDATE identity.users SET totp_possible = true, totp_mark = 2 WHERE id = $1', [stale]);
  // A password alone.
  const plain = await account(true);
  if (census === 'complete') await db.query('INSERT INTO identity.totp_census DEFAULT VALUES');
  return { full, passkeys, provider, unlisted, stale, plain };
}

describe.each(['complete', 'not yet'] as const)('a database of the release before, its TOTP census %s', (census) => {
  let database: TestDatabase;
  let accounts: Awaited<ReturnType<typeof seedReleaseBefore>>;
  let release: Release | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('ledger_migration');
    await migrateAsReleaseBefore(database.url);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      accounts = await seedReleaseBefore(db, census);
      await migrateThisRelease(database.url);
    } finally {
      await db.end();
    }
  }, 60_000);

  afterAll(async () => {
    await release?.stop();
    await database?.drop();
  });

  it('migrates forward onto the safe side of both rules: the password active, the rest pending, TOTP possibly on where it may be', async () => {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const { full, passkeys, provider, unlisted, stale, plain } = accounts;
      const possiblyOn = census === 'complete' ? [] : ['totp::pending'];
      expect(await ledgerOf(db, full)).toEqual(['password::active', ...passkeys.map((id) => `passkey:${id}:pending`), 'provider:google:pending', 'totp::pending'].sort());
      // The passkey the previous ledger lacked is not held yet: it only refuses removals sooner.
      expect(await ledgerOf(db, provider)).toEqual(['provider:github:pending', ...possiblyOn]);
      expect(unlisted).toBeDefined();
      expect(await ledgerOf(db, stale)).toEqual(['password::active', 'totp::pending']);
      expect(await ledgerOf(db, plain)).toEqual(['password::active', ...possiblyOn]);
      // Every unit queued every account it holds credentials of.
      const { rows } = await db.query<{ unit: string; user_id: string }>(
        `SELECT 'passkeys' AS unit, user_id FROM passkeys.unsettled_accounts UNION ALL SELECT 'oauth', user_id FROM oauth.unsettled_accounts
         UNION ALL SELECT 'totp', user_id FROM totp.unsettled_accounts ORDER BY 1, 2`,
      );
      expect(rows).toEqual(
        [
          { unit: 'passkeys', user_id: full },
          { unit: 'passkeys', user_id: provider },
          { unit: 'oauth', user_id: full },
          { unit: 'oauth', user_id: provider },
          { unit: 'totp', user_id: full },
        ].sort((a, b) => (`${a.unit}${a.user_id}` < `${b.unit}${b.user_id}` ? -1 : 1)),
      );
      // What identity pods of the release before still read: no removal they can judge, TOTP unknown for every account.
      const { rows: counted } = await db.query<{ user_id: string; others: number }>(
        `SELECT user_id, count(*) FILTER (WHERE removal_begun_at IS NULL AND kind <> 'password')::int AS others FROM identity.sign_in_methods GROUP BY user_id`,
      );
      expect(counted.every((row) => row.others === 0)).toBe(true);
      expect((await db.query('SELECT 1 FROM identity.totp_census')).rowCount).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('settles, once the units of this release serve, into exactly what the units hold', async () => {
    release = await startRelease(database);
    await settled(release.db);
    for (const userId of [accounts.full, accounts.provider, accounts.stale, accounts.plain]) {
      expect(await ledgerOf(release.db, userId)).toEqual(await heldBy(release.db, userId));
    }
    const userOf = async (userId: string) => (await release!.identity.getUser({ userId })).user!;
    expect(await userOf(accounts.full)).toMatchObject({ secondFactorOff: false, singleFactorSuffices: false, passkeysCount: 2 });
    expect(await userOf(accounts.stale)).toMatchObject({ secondFactorOff: true, singleFactorSuffices: true });
    expect(await userOf(accounts.plain)).toMatchObject({ secondFactorOff: true, singleFactorSuffices: true, passkeysCount: 0 });
    // GitHub created the account: a reset never takes it back.
    const { rows } = await release.db.query('SELECT opened_account FROM identity.credentials WHERE user_id = $1 AND kind = $2', [accounts.provider, 'provider']);
    expect(rows).toEqual([{ opened_account: true }]);
  });

  it('stays on the safe side while a unit of the release before writes the old way, and is repaired once the unit is current again', async () => {
    const db = release!.db;
    const identity = release!.identity;
    const { full, passkeys, provider, plain } = accounts;
    const userOf = async (userId: string) => (await identity.getUser({ userId })).user!;

    // totp of the release before can neither turn TOTP on nor off: both name the presence mark.
    await expect(db.query(`INSERT INTO totp.totp_credentials (user_id, secret_ciphertext, key_id, last_used_step, presence_mark) VALUES ($1, '\\x00', 'k', 1, 3)`, [plain])).rejects.toThrow(
      /presence_mark/,
    );
    await expect(db.query('DELETE FROM totp.totp_credentials WHERE user_id = $1 RETURNING presence_mark', [full])).rejects.toThrow(/presence_mark/);
    expect(await userOf(full)).toMatchObject({ secondFactorOff: false });

    // passkeys of the release before cannot register a passkey: its insert leaves the id to a default that is gone.
    await expect(
      db.query(
        `INSERT INTO passkeys.passkeys (user_id, credential_id, public_key, sign_count, transports, aaguid, backup_eligible, backed_up, name)
         VALUES ($1, $2, $3, 0, '{}', '00000000-0000-0000-0000-000000000000', true, true, 'theirs')`,
        [plain, randomBytes(32), randomBytes(77)],
      ),
    ).rejects.toThrow(/"id"/);
    // It records a suspected clone: until settled the passkey still counts as proving more than a password.
    await db.query('UPDATE passkeys.passkeys SET suspected_clone_at = now() WHERE id = $1', [accounts.unlisted]);
    expect(await userOf(provider)).toMatchObject({ singleFactorSuffices: false });

    // A reset, made with a link as identity mails it: this identity takes back what was added in its window
    // (a passkey of an hour ago) in the reset's transaction.
    await db.query(`UPDATE passkeys.passkeys SET created_at = now() - interval '1 hour' WHERE id = $1`, [passkeys[0]]);
    await sweepLedger({ pool: db, identity, logger }, passkeyLedger);
    const client = await db.connect();
    const token = await issueToken(client, full, 'reset_password', 60).finally(() => client.release());
    const reset = await identity.resetPassword({ token, newPassword: 'the owner is back' });
    expect(await ledgerOf(db, full)).toContain(`passkey:${passkeys[0]}:removing`);
    // passkeys of the release before removes it by the window, as its RemoveRecentPasskeys did, and cannot tell identity:
    // gone from the unit, it stays removing in the ledger, which counts it as no way in.
    await db.query(
      `WITH removed AS (DELETE FROM passkeys.passkeys WHERE user_id = $1 AND created_at > $3 AND created_at < $4 RETURNING id, name, created_at)
       INSERT INTO passkeys.reset_removals (reset_id, user_id, passkey_id, name, registered_at) SELECT $2, $1, id, name, created_at FROM removed`,
      [full, reset.resetId, reset.methodsAddedAfter, reset.resetAt],
    );
    expect(await ledgerOf(db, full)).toContain(`passkey:${passkeys[0]}:removing`);

    // oauth of the release before links as it did, without reserving: no way in until settled, never one too many.
    await db.query(`INSERT INTO oauth.user_oauth_connections (provider, provider_user_id, user_id, email, created_account) VALUES ('google', $1, $2, $3, false)`, [
      randomUUID(),
      provider,
      `${provider}@example.com`,
    ]);
    expect(await ledgerOf(db, provider)).toEqual(['passkey:' + accounts.unlisted + ':active', 'provider:github:active']);

    // Current again: every unit's sweep repairs what the old code changed.
    for (const owner of [passkeyLedger, connectionLedger, totpLedger]) await sweepLedger({ pool: db, identity, logger }, owner, new Date(Date.now() + 1_000));
    for (const userId of [full, provider, plain]) expect(await ledgerOf(db, userId)).toEqual(await heldBy(db, userId));
    expect(await userOf(provider)).toMatchObject({ singleFactorSuffices: true });
    expect(await userOf(full)).toMatchObject({ passkeysCount: 1 });
  });
});
