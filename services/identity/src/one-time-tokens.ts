import type pg from 'pg';
import { generateOpaqueToken, opaqueTokenDigest } from '@latchkey/opaque-token';

export type TokenPurpose = 'verify_email' | 'reset_password' | 'change_email' | 'cancel_email_change';

export interface ConsumedToken {
  userId: string;
  newEmail: string | null;
}

/**
 * Issues a token and returns the raw value, which exists from here on only
 * in the mail. Older tokens of the same purpose stop working: only the
 * newest link a user received is valid.
 */
export async function issueToken(
  db: pg.ClientBase,
  userId: string,
  purpose: TokenPurpose,
  ttlMinutes: number,
  newEmail: string | null = null,
): Promise<string> {
  const token = generateOpaqueToken();
  await db.query('DELETE FROM identity.one_time_tokens WHERE user_id = $1 AND purpose = $2', [userId, purpose]);
  await db.query(
    `INSERT INTO identity.one_time_tokens (token_hash, user_id, purpose, new_email, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))`,
    [opaqueTokenDigest(token), userId, purpose, newEmail, ttlMinutes],
  );
  return token;
}

/**
 * Uses a token up. The DELETE makes it single-use even under concurrent
 * requests: only one of them gets the row back.
 */
export async function consumeToken(
  db: pg.ClientBase,
  token: string,
  purpose: TokenPurpose,
): Promise<ConsumedToken | undefined> {
  const { rows } = await db.query<{ user_id: string; new_email: string | null; live: boolean }>(
    `DELETE FROM identity.one_time_tokens WHERE token_hash = $1 AND purpose = $2
     RETURNING user_id, new_email, expires_at > now() AS live`,
    [opaqueTokenDigest(token), purpose],
  );
  const row = rows[0];
  return row?.live ? { userId: row.user_id, newEmail: row.new_email } : undefined;
}

/** Looks a token up without using it, to validate the rest of a request first. */
export async function peekToken(
  db: pg.ClientBase | pg.Pool,
  token: string,
  purpose: TokenPurpose,
): Promise<ConsumedToken | undefined> {
  const { rows } = await db.query<{ user_id: string; new_email: string | null }>(
    `SELECT user_id, new_email FROM identity.one_time_tokens
      WHERE token_hash = $1 AND purpose = $2 AND expires_at > now()`,
    [opaqueTokenDigest(token), purpose],
  );
  const row = rows[0];
  return row ? { userId: row.user_id, newEmail: row.new_email } : undefined;
}

/**
 * Withdraws every pending email change of the account: its confirmation
 * links and the links that would cancel it. A password reset or change
 * does this, so that a change an intruder asked for cannot be completed
 * once the owner took the account back.
 */
export async function withdrawEmailChanges(db: pg.ClientBase, userId: string): Promise<void> {
  await db.query(`DELETE FROM identity.one_time_tokens WHERE user_id = $1 AND purpose IN ('change_email', 'cancel_email_change')`, [userId]);
}

/** Removes expired tokens; used tokens are already gone. */
export async function deleteExpiredTokens(db: pg.Pool): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM identity.one_time_tokens WHERE expires_at < now()');
  return rowCount ?? 0;
}
