import type pg from 'pg';
import { pageKeySql } from './page-tokens';

/** A users row. `password_hash` never leaves this service. */
export interface UserRecord {
  id: string;
  handle: string;
  email: string;
  password_hash: string | null;
  /** When the password in force was set; null without a password. */
  password_set_at: Date | null;
  email_verified_at: Date | null;
  created_at: Date;
  session_epoch: number;
  disabled_at: Date | null;
  disabled_reason: string | null;
  /** The passkeys the credential ledger holds, in any state. */
  passkeys_count: number;
  /** The ledger holds no second factor, in any state (credential-ledger.ts). */
  second_factor_off: boolean;
  /** Nor a passkey that signs in: one recent factor proves enough to change the ways in. */
  single_factor_suffices: boolean;
}

/**
 * A users row with what is derived from other tables: what the credential
 * ledger says of the account (docs/architecture.md, "The credential
 * ledger"). Every statement names the row `users`: the table itself, or a
 * CTE aliased so.
 */
export const USER_COLUMNS = `id, handle, email, password_hash, password_set_at, email_verified_at, created_at, session_epoch, disabled_at, disabled_reason,
  (SELECT count(*)::int FROM identity.credentials AS credential WHERE credential.user_id = users.id AND credential.kind = 'passkey') AS passkeys_count,
  NOT EXISTS (SELECT FROM identity.credentials AS credential WHERE credential.user_id = users.id AND credential.factor = 'second') AS second_factor_off,
  NOT EXISTS (SELECT FROM identity.credentials AS credential WHERE credential.user_id = users.id
               AND (credential.factor = 'second' OR (credential.kind = 'passkey' AND credential.suspended_at IS NULL))) AS single_factor_suffices`;

export async function findUserById(db: pg.ClientBase | pg.Pool, id: string, lock = false): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `SELECT ${USER_COLUMNS} FROM identity.users WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

/**
 * An account's row, held against deletion (FOR KEY SHARE) until the
 * caller's transaction ends, as a row referring to it will hold it anyway.
 * Taken before any organisation's row: an account deletion locks the
 * account first and then its organisations, so taking the organisation
 * first would let a deletion commit between the read and the reference,
 * and the write fail on the foreign key.
 */
export async function holdUserById(db: pg.ClientBase, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${USER_COLUMNS} FROM identity.users WHERE id = $1 FOR KEY SHARE`, [id]);
  return rows[0];
}

export async function findUserByEmail(db: pg.ClientBase | pg.Pool, email: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${USER_COLUMNS} FROM identity.users WHERE email = $1`, [email]);
  return rows[0];
}

export async function insertUser(
  db: pg.ClientBase,
  user: { id: string; handle: string; email: string; passwordHash: string | null; emailVerified: boolean },
): Promise<UserRecord> {
  // The password joins the credential ledger in the same statement (docs/architecture.md, "The credential ledger").
  const { rows } = await db.query<UserRecord>(
    `WITH inserted AS (
       INSERT INTO identity.users (id, handle, email, password_hash, password_set_at, email_verified_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $4::text IS NOT NULL THEN now() END, CASE WHEN $5 THEN now() END)
       RETURNING ${USER_COLUMNS}
     ), listed AS (
       INSERT INTO identity.credentials (user_id, kind, reference, state, added_at)
       SELECT id, 'password', '', 'active', password_set_at FROM inserted WHERE password_hash IS NOT NULL
     )
     SELECT ${USER_COLUMNS} FROM inserted AS users`,
    [user.id, user.handle, user.email, user.passwordHash, user.emailVerified],
  );
  return rows[0] as UserRecord;
}

export async function setPasswordHash(
  db: pg.ClientBase | pg.Pool,
  id: string,
  passwordHash: string,
  options: { markEmailVerified?: boolean } = {},
): Promise<UserRecord | undefined> {
  // The new password is in the ledger as of now, in the same statement: a first one (a reset of an account without one) joins it.
  const { rows } = await db.query<UserRecord>(
    `WITH updated AS (
       UPDATE identity.users
          SET password_hash = $2,
              password_set_at = now(),
              email_verified_at = CASE WHEN $3 THEN coalesce(email_verified_at, now()) ELSE email_verified_at END,
              -- Every session started with the old password belongs to an earlier epoch.
              session_epoch = session_epoch + 1,
              updated_at = now()
        WHERE id = $1
        RETURNING ${USER_COLUMNS}
     ), listed AS (
       INSERT INTO identity.credentials (user_id, kind, reference, state, added_at)
       SELECT id, 'password', '', 'active', password_set_at FROM updated
       ON CONFLICT (user_id, kind, reference) DO UPDATE SET added_at = EXCLUDED.added_at, changed_at = now()
     )
     SELECT ${USER_COLUMNS} FROM updated AS users`,
    [id, passwordHash, options.markEmailVerified ?? false],
  );
  return rows[0];
}

/**
 * Replaces a hash of the same password by one with stronger parameters:
 * the password is unchanged, so its sessions, epoch and age are too. Only
 * while the hash is still `previousHash`, so that a password changed
 * meanwhile is not put back.
 */
export async function upgradePasswordHash(db: pg.Pool, id: string, previousHash: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE identity.users SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [id, previousHash, passwordHash]);
}

/**
 * Drops the password: it can no longer sign in, and every session started
 * with it belongs to an earlier epoch. It leaves the credential ledger in
 * the same statement.
 */
export async function dropPassword(db: pg.ClientBase, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `WITH updated AS (
       UPDATE identity.users SET password_hash = NULL, password_set_at = NULL, session_epoch = session_epoch + 1, updated_at = now()
        WHERE id = $1 RETURNING ${USER_COLUMNS}
     ), unlisted AS (
       DELETE FROM identity.credentials WHERE user_id IN (SELECT id FROM updated) AND kind = 'password'
     )
     SELECT ${USER_COLUMNS} FROM updated AS users`,
    [id],
  );
  return rows[0];
}

export async function markEmailVerified(db: pg.ClientBase, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `UPDATE identity.users SET email_verified_at = coalesce(email_verified_at, now()), updated_at = now()
      WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/** Moves the account to a confirmed address, which counts as verified. */
export async function setVerifiedEmail(db: pg.ClientBase, id: string, email: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `UPDATE identity.users SET email = $2, email_verified_at = now(), updated_at = now()
      WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id, email],
  );
  return rows[0];
}

export async function findUserByHandle(db: pg.ClientBase | pg.Pool, handle: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(`SELECT ${USER_COLUMNS} FROM identity.users WHERE handle = $1`, [handle]);
  return rows[0];
}

/** Up to `limit` accounts created before the (created_at, id) cursor, newest first. */
export async function listUsersPage(
  db: pg.Pool,
  limit: number,
  after: { at: string; id: string } | undefined,
): Promise<(UserRecord & { page_key: string })[]> {
  const { rows } = await db.query<UserRecord & { page_key: string }>(
    `SELECT ${USER_COLUMNS}, ${pageKeySql('created_at')} AS page_key FROM identity.users
     WHERE $2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid) ORDER BY created_at DESC, id DESC LIMIT $1`,
    [limit, after?.at ?? null, after?.id ?? null],
  );
  return rows;
}

/**
 * Disables or enables an account. Disabling raises the session epoch, so
 * that the revocation job queued with it ends every session; a second
 * disable keeps the first disabled_at.
 */
export async function setDisabled(db: pg.ClientBase, id: string, reason: string | null): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    reason === null
      ? `UPDATE identity.users SET disabled_at = NULL, disabled_reason = NULL, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`
      : `UPDATE identity.users SET disabled_at = coalesce(disabled_at, now()), disabled_reason = $2,
                          session_epoch = session_epoch + 1, updated_at = now()
          WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    reason === null ? [id] : [id, reason],
  );
  return rows[0];
}

/** Raises the session epoch alone: every session started before ends. */
export async function raiseSessionEpoch(db: pg.ClientBase, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRecord>(
    `UPDATE identity.users SET session_epoch = session_epoch + 1, updated_at = now() WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id],
  );
  return rows[0];
}
