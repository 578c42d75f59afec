import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, testRequestContext, uniqueName, waitFor, type TestDatabase } from '@latchkey/test-kit';
import { lockAccounts } from './account-locks';
import { changeCredentials } from './credential-changes';
import type { CredentialOwner, IdentityClient } from './credential-owner';
import { sweepLedger } from './ledger-sweep';
import { settleAccounts } from './settlement';

/**
 * The owners' half of the credential ledger's protocol, against PostgreSQL:
 * a unit of keys (a table, the queue and the trigger a unit's migration
 * creates) and an identity that keeps its ledger in memory.
 */

const KIND = 2;
const silent = createLogger({ service: 'credential-ledger-test', level: 'silent' });

let database: TestDatabase;
let pool: pg.Pool;
let schema: string;
let owner: CredentialOwner;
let ledger: FakeLedger;

type State = 'pending' | 'active' | 'removing';

/** identity.v1's ledger as far as an owner sees it; what each RPC is asked is kept. */
class FakeLedger {
  readonly rows = new Map<string, Map<string, State>>();
  readonly calls: string[] = [];
  /** Credentials resets took back, answered by a settlement while the owner holds them. */
  readonly takenBack: identityV1.TakeBack[] = [];
  refuseRemoval = false;
  down = false;

  private of(userId: string): Map<string, State> {
    let rows = this.rows.get(userId);
    if (!rows) this.rows.set(userId, (rows = new Map<string, State>()));
    return rows;
  }

  private answer(): void {
    if (this.down) throw new AppError('service:unavailable');
  }

  readonly client = {
    reserveCredential: async ({ userId, reference }: identityV1.ReserveCredentialRequest) => {
      this.calls.push(`reserve ${reference}`);
      this.answer();
      this.of(userId).set(reference, 'pending');
      return {};
    },
    reserveCredentialRemoval: async ({ userId, reference }: identityV1.ReserveCredentialRemovalRequest) => {
      this.calls.push(`reserve removal ${reference}`);
      this.answer();
      if (this.refuseRemoval) throw new AppError('passkey:last_login_method');
      this.of(userId).set(reference, 'removing');
      return {};
    },
    settleCredentials: async ({ accounts }: identityV1.SettleCredentialsRequest) => {
      this.calls.push(`settle ${accounts.map((account) => `${account.userId}:[${account.credentials.map((held) => held.reference).join(',')}]`).join(' ')}`);
      this.answer();
      for (const account of accounts) {
        const rows = this.of(account.userId);
        const held = new Set(account.credentials.map((credential) => credential.reference));
        for (const reference of rows.keys()) if (!held.has(reference)) rows.delete(reference);
        for (const reference of held) rows.set(reference, 'active');
      }
      const named = new Map(accounts.map((account) => [account.userId, new Set(account.credentials.map((held) => held.reference))]));
      return { takeBacks: this.takenBack.filter((taken) => named.get(taken.userId)?.has(taken.reference)) };
    },
    listUnsettledCredentials: async ({ afterUserId, limit }: identityV1.ListUnsettledCredentialsRequest) => {
      this.answer();
      const userIds = [...this.rows]
        .filter(([userId, rows]) => userId > afterUserId && [...rows.values()].some((state) => state !== 'active'))
        .map(([userId]) => userId)
        .sort()
        .slice(0, limit);
      return { userIds };
    },
  };

  stateOf(userId: string): Record<string, State> {
    return Object.fromEntries(this.of(userId));
  }
}

beforeAll(async () => {
  database = await createTestDatabase('credential_ledger');
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  schema = uniqueName('keys');
  // As a unit's migration creates them (services/passkeys/migrations/005_credential_ledger.sql).
  await pool.query(`
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.keys (id uuid PRIMARY KEY, user_id uuid NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE ${schema}.reset_removals (reset_id uuid NOT NULL, key_id uuid NOT NULL, PRIMARY KEY (reset_id, key_id));
    CREATE TABLE ${schema}.unsettled_accounts (user_id uuid PRIMARY KEY, version bigint NOT NULL DEFAULT 1, queued_at timestamptz NOT NULL DEFAULT now());
    CREATE FUNCTION ${schema}.queue_unsettled_account() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${schema}.unsettled_accounts AS queued (user_id)
      VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END)
      ON CONFLICT (user_id) DO UPDATE SET version = queued.version + 1;
      RETURN NULL;
    END $$;
    CREATE TRIGGER keys_queue_unsettled_account AFTER INSERT OR DELETE ON ${schema}.keys
      FOR EACH ROW EXECUTE FUNCTION ${schema}.queue_unsettled_account();
  `);
  owner = {
    schema,
    kind: KIND,
    async held(db, userIds) {
      const { rows } = await db.query<{ id: string; user_id: string; created_at: Date }>(
        `SELECT id, user_id, created_at FROM ${schema}.keys WHERE user_id = ANY($1::uuid[]) ORDER BY id`,
        [[...userIds]],
      );
      return userIds.map((userId) => ({
        userId,
        credentials: rows.filter((row) => row.user_id === userId).map((row) => ({ reference: row.id, addedAt: row.created_at, openedAccount: false })),
      }));
    },
    async takeBack(db, takeBacks) {
      for (const taken of takeBacks) {
        await db.query(`DELETE FROM ${schema}.keys WHERE id = $1`, [taken.reference]);
        await db.query(`INSERT INTO ${schema}.reset_removals (reset_id, key_id) VALUES ($1, $2)`, [taken.resetId, taken.reference]);
      }
    },
  };
});

beforeEach(() => {
  ledger = new FakeLedger();
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const deps = () => ({ pool, identity: ledger.client as unknown as IdentityClient });
const keysOf = async (userId: string): Promise<string[]> =>
  (await pool.query<{ id: string }>(`SELECT id FROM ${schema}.keys WHERE user_id = $1 ORDER BY id`, [userId])).rows.map((row) => row.id);
const queued = async (userId: string): Promise<boolean> =>
  (await pool.query(`SELECT 1 FROM ${schema}.unsettled_accounts WHERE user_id = $1`, [userId])).rowCount === 1;
const insertKey = (db: pg.ClientBase | pg.Pool, userId: string, id: string) => db.query(`INSERT INTO ${schema}.keys (id, user_id) VALUES ($1, $2)`, [id, userId]);

describe('changeCredentials()', () => {
  it('reserves before the unit writes, and settles the account from what it holds once it committed', async () => {
    const userId = randomUUID();
    const id = randomUUID();
    const answer = await changeCredentials(
      deps(),
      owner,
      userId,
      async (db, reservations) => {
        await reservations.reserve(id);
        ledger.calls.push('write');
        await insertKey(db, userId, id);
        return 'stored';
      },
      testRequestContext(),
    );
    expect(answer).toBe('stored');
    expect(ledger.calls).toEqual([`reserve ${id}`, 'write', `settle ${userId}:[${id}]`]);
    expect(ledger.stateOf(userId)).toEqual({ [id]: 'active' });
    expect(await queued(userId)).toBe(false);
  });

  it('rolls a reservation back from what the unit holds when its change fails after reserving', async () => {
    const userId = randomUUID();
    const kept = randomUUID();
    await insertKey(pool, userId, kept);
    const failed = changeCredentials(
      deps(),
      owner,
      userId,
      async (db, reservations) => {
        await reservations.reserveRemoval(kept);
        await db.query(`DELETE FROM ${schema}.keys WHERE id = $1`, [kept]);
        throw new Error('the unit failed after deleting, before committing');
      },
      testRequestContext(),
    );
    await expect(failed).rejects.toThrow('before committing');
    expect(await keysOf(userId)).toEqual([kept]);
    expect(ledger.stateOf(userId)).toEqual({ [kept]: 'active' });
  });

  it('changes nothing when identity refuses the reservation, and asks nothing more when nothing was reserved', async () => {
    const userId = randomUUID();
    const last = randomUUID();
    await insertKey(pool, userId, last);
    ledger.refuseRemoval = true;
    const removal = changeCredentials(
      deps(),
      owner,
      userId,
      async (db, reservations) => {
        await reservations.reserveRemoval(last);
        await db.query(`DELETE FROM ${schema}.keys WHERE id = $1`, [last]);
      },
      testRequestContext(),
    );
    expect(((await removal.catch((error: unknown) => error)) as AppError).code).toBe('passkey:last_login_method');
    expect(await keysOf(userId)).toEqual([last]);

    ledger.calls.length = 0;
    const refusedEarly = changeCredentials(
      deps(),
      owner,
      userId,
      async () => {
        throw new AppError('passkey:not_found');
      },
      testRequestContext(),
    );
    await expect(refusedEarly).rejects.toThrow(AppError);
    expect(ledger.calls).toEqual([]);
  });

  it('answers the change when the settlement fails, and leaves the account queued for the sweep', async () => {
    const userId = randomUUID();
    const id = randomUUID();
    const change = changeCredentials(
      deps(),
      owner,
      userId,
      async (db, reservations) => {
        await reservations.reserve(id);
        await insertKey(db, userId, id);
        ledger.down = true;
      },
      testRequestContext(),
    );
    await expect(change).resolves.toBeUndefined();
    expect(ledger.stateOf(userId)).toEqual({ [id]: 'pending' });
    expect(await queued(userId)).toBe(true);
    ledger.down = false;
    await sweepLedger({ ...deps(), logger: silent }, owner);
    expect(ledger.stateOf(userId)).toEqual({ [id]: 'active' });
    expect(await queued(userId)).toBe(false);
  });
});

describe('lockAccounts()', () => {
  it('keeps a second transaction of the same account waiting until the first ends, and lets other accounts through', async () => {
    const userId = randomUUID();
    const [first, second, other] = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    try {
      await first.query('BEGIN');
      await lockAccounts(first, owner, [userId]);
      await second.query('BEGIN');
      let secondLocked = false;
      const waiting = lockAccounts(second, owner, [userId.toUpperCase()]).then(() => (secondLocked = true));
      await waitFor(
        async () => ((await pool.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rowCount! > 0 ? true : undefined),
        { description: 'the second transaction waiting for the lock' },
      );
      await other.query('BEGIN');
      await lockAccounts(other, owner, [randomUUID()]);
      await other.query('COMMIT');
      // The other account's lock went through while the second waits still.
      expect(secondLocked).toBe(false);
      await first.query('COMMIT');
      await waiting;
      expect(secondLocked).toBe(true);
      await second.query('COMMIT');
    } finally {
      for (const client of [first, second, other]) client.release();
    }
  });
});

describe('settleAccounts()', () => {
  it('removes what resets took back, remembers it under the reset, and settles the account again', async () => {
    const userId = randomUUID();
    const [kept, taken] = [randomUUID(), randomUUID()];
    await insertKey(pool, userId, kept);
    await insertKey(pool, userId, taken);
    const resetId = randomUUID();
    ledger.takenBack.push({ userId, reference: taken, resetId });
    await settleAccounts(deps(), owner, [userId], testRequestContext());
    expect(await keysOf(userId)).toEqual([kept]);
    expect(ledger.stateOf(userId)).toEqual({ [kept]: 'active' });
    const { rows } = await pool.query(`SELECT key_id FROM ${schema}.reset_removals WHERE reset_id = $1`, [resetId]);
    expect(rows).toEqual([{ key_id: taken }]);
    expect(await queued(userId)).toBe(false);
  });

  it('unqueues only what it saw: a change made meanwhile without the lock stays queued', async () => {
    const userId = randomUUID();
    await insertKey(pool, userId, randomUUID());
    // A unit of an earlier release, which takes no lock, writes while the settlement is with identity.
    const settle = ledger.client.settleCredentials;
    ledger.client.settleCredentials = async (request) => {
      await insertKey(pool, userId, randomUUID());
      return settle(request);
    };
    await settleAccounts(deps(), owner, [userId], testRequestContext());
    expect(await queued(userId)).toBe(true);
    ledger.client.settleCredentials = settle;
    await settleAccounts(deps(), owner, [userId], testRequestContext());
    expect(await queued(userId)).toBe(false);
    expect(Object.keys(ledger.stateOf(userId)).sort()).toEqual(await keysOf(userId));
  });
});

describe('sweepLedger()', () => {
  it("settles every queued account and every account with reservations identity lists, past one call's batch", async () => {
    const queuedAccounts = Array.from({ length: 230 }, () => randomUUID());
    for (const userId of queuedAccounts) await insertKey(pool, userId, randomUUID());
    // Reserved by a unit that died before storing anything.
    const reserved = Array.from({ length: 120 }, () => randomUUID());
    for (const userId of reserved) await ledger.client.reserveCredential({ userId, kind: KIND, reference: randomUUID(), openedAccount: false });
    const settled = await sweepLedger({ ...deps(), logger: silent }, owner);
    expect(settled).toBeGreaterThanOrEqual(queuedAccounts.length + reserved.length);
    for (const userId of queuedAccounts) {
      expect(await queued(userId)).toBe(false);
      expect(Object.values(ledger.stateOf(userId))).toEqual(['active']);
    }
    for (const userId of reserved) expect(ledger.stateOf(userId)).toEqual({});
  });
});
