import type pg from 'pg';

type Queryable = pg.ClientBase | pg.Pool;

/** One stored WebAuthn credential. */
export interface StoredPasskey {
  readonly id: string;
  readonly userId: string;
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  readonly signCount: number;
  readonly transports: readonly string[];
  readonly aaguid: string;
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  /** When a sign-in with it first reported a counter that did not grow; null while none has. */
  readonly suspectedCloneAt: Date | null;
}

interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: Buffer;
  public_key: Buffer;
  // pg returns bigint as a string; a WebAuthn counter is at most 2^32 - 1.
  sign_count: string;
  transports: string[];
  aaguid: string;
  backup_eligible: boolean;
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  suspected_clone_at: Date | null;
}

const COLUMNS = `id, user_id, credential_id, public_key, sign_count, transports, aaguid,
  backup_eligible, backed_up, name, created_at, last_used_at, suspected_clone_at`;

function toPasskey(row: PasskeyRow): StoredPasskey {
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    signCount: Number(row.sign_count),
    transports: row.transports,
    aaguid: row.aaguid,
    backupEligible: row.backup_eligible,
    backedUp: row.backed_up,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    suspectedCloneAt: row.suspected_clone_at,
  };
}

/** A user's passkeys, oldest first. */
export async function findPasskeysOfUser(db: Queryable, userId: string): Promise<StoredPasskey[]> {
  const { rows } = await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys.passkeys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows.map(toPasskey);
}

export async function findPasskeyByCredentialId(db: Queryable, credentialId: Buffer): Promise<StoredPasskey | undefined> {
  const { rows } = await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys.passkeys WHERE credential_id = $1`, [credentialId]);
  return rows[0] && toPasskey(rows[0]);
}

/**
 * Stores a newly registered credential under the id reserved for it in
 * identity's credential ledger. Answers undefined when its credential id is
 * stored already (for any account), instead of raising a unique violation.
 */
export async function insertPasskey(
  db: Queryable,
  passkey: Omit<StoredPasskey, 'createdAt' | 'lastUsedAt' | 'suspectedCloneAt'>,
): Promise<StoredPasskey | undefined> {
  const { rows } = await db.query<PasskeyRow>(
    `INSERT INTO passkeys.passkeys (id, user_id, credential_id, public_key, sign_count, transports, aaguid, backup_eligible, backed_up, name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (credential_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      passkey.id,
      passkey.userId,
      passkey.credentialId,
      passkey.publicKey,
      passkey.signCount,
      passkey.transports,
      passkey.aaguid,
      passkey.backupEligible,
      passkey.backedUp,
      passkey.name,
    ],
  );
  return rows[0] && toPasskey(rows[0]);
}

/**
 * Records a successful use. The counter moves only forward, conditionally:
 * of two sign-ins with one assertion (or with a clone racing the original)
 * exactly one updates a counting authenticator's row; answers undefined for
 * the other, and for a passkey marked as a suspected clone meanwhile.
 */
export async function recordUse(
  db: Queryable,
  use: { id: string; previousSignCount: number; signCount: number; backedUp: boolean },
): Promise<StoredPasskey | undefined> {
  const { rows } = await db.query<PasskeyRow>(
    `UPDATE passkeys.passkeys SET sign_count = $3, backed_up = $4, last_used_at = now()
      WHERE id = $1 AND sign_count = $2 AND suspected_clone_at IS NULL
      RETURNING ${COLUMNS}`,
    [use.id, use.previousSignCount, use.signCount, use.backedUp],
  );
  return rows[0] && toPasskey(rows[0]);
}

/**
 * Marks a passkey as suspected of being cloned. Answers whether this call
 * marked it: of two reports at once, or a report of a marked passkey, only
 * the first counts, so that its owner is mailed once.
 */
export async function markSuspectedClone(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE passkeys.passkeys SET suspected_clone_at = now() WHERE id = $1 AND suspected_clone_at IS NULL', [id]);
  return rowCount === 1;
}

export async function renamePasskey(db: Queryable, userId: string, id: string, name: string): Promise<StoredPasskey | undefined> {
  const { rows } = await db.query<PasskeyRow>(
    `UPDATE passkeys.passkeys SET name = $3 WHERE user_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [userId, id, name],
  );
  return rows[0] && toPasskey(rows[0]);
}

export async function deletePasskey(db: Queryable, userId: string, id: string): Promise<void> {
  await db.query('DELETE FROM passkeys.passkeys WHERE user_id = $1 AND id = $2', [userId, id]);
}

/** Every passkey of the user, and what resets remember of removed ones. */
export async function deletePasskeysOfUser(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM passkeys.passkeys WHERE user_id = $1', [userId]);
  await db.query('DELETE FROM passkeys.reset_removals WHERE user_id = $1', [userId]);
}
