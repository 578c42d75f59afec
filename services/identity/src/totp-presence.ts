import type pg from 'pg';
import { identityV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { UserRecord } from './user-store';

/**
 * What identity knows of an account's TOTP without asking the totp service
 * (docs/architecture.md, "Second factor presence"): enough for a sign-in
 * or an account view to skip that call when TOTP is off. "Absent" must
 * never be wrong, or a password alone would open an account with TOTP on:
 *
 * - the totp service marks an account possible before it turns TOTP on,
 *   and gets a new mark each time;
 * - it unmarks it after it turned TOTP off, naming the mark of the TOTP it
 *   turned off, so that an unmark overtaken by a newer mark changes nothing;
 * - what it held before the marks existed it marks at start, then calls the
 *   census complete; until then an unmarked account is "not known".
 *
 * A failure between the steps leaves an account marked with TOTP off,
 * which only costs the call this saves.
 */

/** Per call, as for the ledger of sign-in methods. */
export const MAX_ACCOUNTS_PER_CALL = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The presence identity.v1 answers with an account. */
export function totpPresenceOf(user: Pick<UserRecord, 'totp_possible' | 'totp_census_complete'>): identityV1.TotpPresence {
  if (user.totp_possible) return identityV1.TotpPresence.TOTP_PRESENCE_POSSIBLE;
  return user.totp_census_complete ? identityV1.TotpPresence.TOTP_PRESENCE_ABSENT : identityV1.TotpPresence.TOTP_PRESENCE_UNSPECIFIED;
}

/** Marks the accounts possible; answers each existing account's new mark. */
export async function recordTotpPossible(db: pg.Pool, userIds: readonly string[]): Promise<identityV1.TotpMark[]> {
  if (userIds.length === 0 || userIds.length > MAX_ACCOUNTS_PER_CALL) {
    throw AppError.validation([{ field: 'user_ids', message: `must hold 1 to ${MAX_ACCOUNTS_PER_CALL} account ids` }]);
  }
  const malformed = userIds.findIndex((id) => !UUID.test(id));
  if (malformed >= 0) throw AppError.validation([{ field: `user_ids[${malformed}]`, message: 'must be a UUID' }]);
  const { rows } = await db.query<{ id: string; totp_mark: string }>(
    `UPDATE identity.users SET totp_possible = true, totp_mark = totp_mark + 1
      WHERE id = ANY($1::uuid[]) RETURNING id, totp_mark`,
    [userIds.map((id) => id.toLowerCase())],
  );
  // pg answers bigint as a string; a mark stays far below 2^53.
  return rows.map((row) => ({ userId: row.id, mark: Number(row.totp_mark) }));
}

/** Unmarks the account, unless it was marked again after `mark`. */
export async function recordTotpAbsent(db: pg.Pool, input: { userId: string; mark: number }): Promise<boolean> {
  const errors = [
    ...(UUID.test(input.userId) ? [] : [{ field: 'user_id', message: 'must be a UUID' }]),
    ...(Number.isSafeInteger(input.mark) && input.mark >= 1 ? [] : [{ field: 'mark', message: 'must be a mark RecordTotpPossible answered' }]),
  ];
  if (errors.length > 0) throw AppError.validation(errors);
  const { rowCount } = await db.query('UPDATE identity.users SET totp_possible = false WHERE id = $1 AND totp_mark = $2', [
    input.userId.toLowerCase(),
    input.mark,
  ]);
  return rowCount === 1;
}

/** From now on an unmarked account has TOTP off. */
export async function completeTotpCensus(db: pg.Pool): Promise<void> {
  await db.query('INSERT INTO identity.totp_census DEFAULT VALUES ON CONFLICT DO NOTHING');
}
