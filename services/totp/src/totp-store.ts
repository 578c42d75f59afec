import type pg from 'pg';
import type { BackupCodeHash } from './backup-codes';
import type { SealedSecret } from '@latchkey/secret-box';

type Queryable = pg.ClientBase | pg.Pool;

/** An enabled user's TOTP credential as stored; the secret only sealed. */
export interface TotpCredential {
  readonly userId: string;
  readonly sealedSecret: SealedSecret;
  readonly enabledAt: Date;
  /** The last accepted RFC 6238 time step, or null before the first one. */
  readonly lastUsedStep: number | null;
}

interface CredentialRow {
  user_id: string;
  secret_ciphertext: Buffer;
  key_id: string;
  enabled_at: Date;
  // pg returns bigint as a string; time steps stay far below 2^53.
  last_used_step: string | null;
}

function toCredential(row: CredentialRow): TotpCredential {
  return {
    userId: row.user_id,
    sealedSecret: { keyId: row.key_id, ciphertext: row.secret_ciphertext },
    enabledAt: row.enabled_at,
    lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
  };
}

export async function findCredential(db: Queryable, userId: string): Promise<TotpCredential | undefined> {
  const { rows } = await db.query<CredentialRow>(
    `SELECT user_id, secret_ciphertext, key_id, enabled_at, last_used_step
       FROM totp.totp_credentials WHERE user_id = $1`,
    [userId],
  );
  return rows[0] && toCredential(rows[0]);
}

/**
 * Stores the credential of a user who just enabled TOTP, with the step of
 * the code that proved it. Answers undefined when the user already has one,
 * instead of raising a unique violation.
 */
export async function insertCredential(
  db: pg.ClientBase,
  credential: { userId: string; sealedSecret: SealedSecret; acceptedStep: number },
): Promise<TotpCredential | undefined> {
  const { rows } = await db.query<CredentialRow>(
    `INSERT INTO totp.totp_credentials (user_id, secret_ciphertext, key_id, last_used_step)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id) DO NOTHING
     RETURNING user_id, secret_ciphertext, key_id, enabled_at, last_used_step`,
    [credential.userId, credential.sealedSecret.ciphertext, credential.sealedSecret.keyId, credential.acceptedStep],
  );
  return rows[0] && toCredential(rows[0]);
}

/**
 * The replay guard: moves `last_used_step` forward to `step` only if it is
 * still behind it. The row lock of the UPDATE serialises concurrent requests,
 * so of two requests with the same code exactly one gets a row back.
 * `resealed` replaces the stored secret when it was sealed with a retired key.
 */
export async function acceptTimeStep(
  db: Queryable,
  userId: string,
  step: number,
  resealed?: SealedSecret,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE totp.totp_credentials
        SET last_used_step = $2,
            secret_ciphertext = coalesce($3, secret_ciphertext),
            key_id = coalesce($4, key_id),
            updated_at = now()
      WHERE user_id = $1 AND (last_used_step IS NULL OR last_used_step < $2)`,
    [userId, step, resealed?.ciphertext ?? null, resealed?.keyId ?? null],
  );
  return rowCount === 1;
}

/** Removes the credential and, by cascade, its backup codes. */
export async function deleteCredential(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM totp.totp_credentials WHERE user_id = $1', [userId]);
}

/** Replaces every backup code of a user with `hashes`. */
export async function replaceBackupCodes(
  db: pg.ClientBase,
  userId: string,
  hashes: readonly BackupCodeHash[],
): Promise<void> {
  await db.query('DELETE FROM totp.backup_codes WHERE user_id = $1', [userId]);
  await db.query(
    `INSERT INTO totp.backup_codes (user_id, code_hash, key_id)
     SELECT $1, code_hash, key_id FROM unnest($2::bytea[], $3::text[]) AS given (code_hash, key_id)`,
    [userId, hashes.map((h) => h.hash), hashes.map((h) => h.keyId)],
  );
}

/**
 * Uses a backup code up. The DELETE makes it single-use under concurrency:
 * of several requests with the same code, only one gets the row back.
 * `candidates` are the code's hashes under every configured key.
 */
export async function consumeBackupCode(db: Queryable, userId: string, candidates: readonly Buffer[]): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM totp.backup_codes WHERE user_id = $1 AND code_hash = ANY($2::bytea[]) RETURNING code_hash',
    [userId, candidates],
  );
  return (rowCount ?? 0) > 0;
}

export async function countBackupCodes(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ remaining: number }>(
    'SELECT count(*)::int AS remaining FROM totp.backup_codes WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.remaining ?? 0;
}
