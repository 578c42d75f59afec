import type pg from 'pg';
import { USER_COLUMNS, type UserRecord } from './user-store';

/**
 * Ended sessions an answer lists at most: what the gateway asks for about
 * every active account every AUTH_ACCOUNT_STATE_MAX_AGE_MS must stay small
 * whatever the account did (a script that signs in and out all day ends
 * thousands of sessions a month). Past it the answer says so, and the
 * gateway asks about each older session by its id.
 */
export const ENDED_SESSIONS_LISTED = 100;

/**
 * How long an ended record is kept when the caller did not say when its
 * sessions expire (a gateway older than RecordSessionsEndedRequest.expires_at):
 * the gateway's default AUTH_SESSION_MAX_LIFETIME_HOURS.
 */
const DEFAULT_KEEP_MS = 720 * 60 * 60 * 1000;

/** What a session check needs to know of an account's ended sessions. */
export interface EndedSessions {
  /** The most recently ended, and the checked session if it ended. */
  readonly sessionIds: string[];
  /** Whether more ended than are listed. */
  readonly truncated: boolean;
}

/**
 * Records, in the caller's transaction, that sessions of an account ended,
 * until `expiresAt` (when the last of them would have expired anyway). An
 * account deleted meanwhile records nothing: its sessions are refused as
 * the sessions of no account. The account's row is share-locked so that a
 * concurrent deletion waits for this transaction instead of failing it.
 */
export async function recordEndedSessions(
  db: pg.ClientBase,
  ending: { readonly userId: string; readonly sessionIds: readonly string[]; readonly expiresAt: Date | undefined },
): Promise<void> {
  const { rowCount } = await db.query('SELECT FROM identity.users WHERE id = $1 FOR KEY SHARE', [ending.userId]);
  if (rowCount === 0) return;
  const keepUntil = ending.expiresAt ?? new Date(Date.now() + DEFAULT_KEEP_MS);
  await db.query(
    `INSERT INTO identity.ended_sessions (user_id, session_id, keep_until)
     SELECT $1, session_id, $3 FROM unnest($2::text[]) AS ended (session_id)
     ON CONFLICT (user_id, session_id) DO UPDATE SET keep_until = GREATEST(ended_sessions.keep_until, excluded.keep_until)`,
    [ending.userId, [...ending.sessionIds], keepUntil],
  );
}

interface UserWithEndings extends UserRecord {
  /** Up to one more than ENDED_SESSIONS_LISTED, newest first, to tell whether there are more. */
  recent_endings: string[];
  checked_session_ended: boolean;
}

/**
 * The account and its ended sessions that have not expired, in one
 * statement: this is the read behind every session check of the gateway
 * (identity.v1 GetUser with a session check), once per active account per
 * AUTH_ACCOUNT_STATE_MAX_AGE_MS.
 */
export async function findUserWithEndedSessions(
  db: pg.Pool,
  userId: string,
  checkedSessionId: string,
): Promise<{ user: UserRecord; endedSessions: EndedSessions } | undefined> {
  const { rows } = await db.query<UserWithEndings>(
    `SELECT ${USER_COLUMNS},
       ARRAY(
         SELECT ended.session_id FROM identity.ended_sessions AS ended
         WHERE ended.user_id = users.id AND ended.keep_until > now()
         ORDER BY ended.ended_at DESC LIMIT ${String(ENDED_SESSIONS_LISTED + 1)}
       ) AS recent_endings,
       EXISTS (
         SELECT FROM identity.ended_sessions AS ended
         WHERE ended.user_id = users.id AND ended.session_id = $2 AND ended.keep_until > now()
       ) AS checked_session_ended
     FROM identity.users WHERE id = $1`,
    [userId, checkedSessionId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { recent_endings: recent, checked_session_ended: checkedEnded, ...user } = row;
  const sessionIds = recent.slice(0, ENDED_SESSIONS_LISTED);
  if (checkedEnded && !sessionIds.includes(checkedSessionId)) sessionIds.push(checkedSessionId);
  return { user, endedSessions: { sessionIds, truncated: recent.length > ENDED_SESSIONS_LISTED } };
}

/** Drops the records of sessions that have expired on their own: nothing can bring those back. */
export async function deleteExpiredEndings(db: pg.Pool): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM identity.ended_sessions WHERE keep_until < now()');
  return rowCount ?? 0;
}
