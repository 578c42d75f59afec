import type pg from 'pg';
import { AppError } from '@latchkey/errors';
import { isUniqueViolation } from '@latchkey/db';
import type { ProviderName } from './providers/provider';

/** A user_oauth_connections row. */
export interface ConnectionRecord {
  provider: ProviderName;
  provider_user_id: string;
  user_id: string;
  email: string;
  linked_at: Date;
}

type Queryable = pg.ClientBase | pg.Pool;

const COLUMNS = 'provider, provider_user_id, user_id, email, linked_at';

export async function findConnectionByIdentity(
  db: Queryable,
  provider: ProviderName,
  providerUserId: string,
): Promise<ConnectionRecord | undefined> {
  const { rows } = await db.query<ConnectionRecord>(
    `SELECT ${COLUMNS} FROM oauth.user_oauth_connections WHERE provider = $1 AND provider_user_id = $2`,
    [provider, providerUserId],
  );
  return rows[0];
}

/**
 * The user's connections, oldest first. With `lock`, the rows stay locked
 * until the transaction ends, so that two unlinks of one user run one after
 * the other and cannot together remove the last way to sign in.
 */
export async function findConnectionsOfUser(db: Queryable, userId: string, lock = false): Promise<ConnectionRecord[]> {
  const { rows } = await db.query<ConnectionRecord>(
    `SELECT ${COLUMNS} FROM oauth.user_oauth_connections WHERE user_id = $1 ORDER BY linked_at, provider${lock ? ' FOR UPDATE' : ''}`,
    [userId],
  );
  return rows;
}

/** Adds a connection; `createdAccount` for the one a provider sign-up made the account with. */
export async function insertConnection(
  db: Queryable,
  connection: { provider: ProviderName; providerUserId: string; userId: string; email: string; createdAccount?: boolean },
): Promise<ConnectionRecord> {
  const { rows } = await db.query<ConnectionRecord>(
    `INSERT INTO oauth.user_oauth_connections (provider, provider_user_id, user_id, email, created_account)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [connection.provider, connection.providerUserId, connection.userId, connection.email, connection.createdAccount ?? false],
  );
  return rows[0] as ConnectionRecord;
}

export async function deleteConnection(db: Queryable, userId: string, provider: ProviderName): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM oauth.user_oauth_connections WHERE user_id = $1 AND provider = $2', [
    userId,
    provider,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Every connection of the user, and what resets remember of removed ones. */
export async function deleteConnectionsOfUser(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM oauth.user_oauth_connections WHERE user_id = $1', [userId]);
  await db.query('DELETE FROM oauth.reset_removals WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}

/**
 * Either unique constraint means a concurrent request made the same kind of
 * connection first: the identity is taken, or the user has this provider.
 */
export function connectionConflict(error: unknown): AppError | undefined {
  if (isUniqueViolation(error, 'user_oauth_connections_pkey') || isUniqueViolation(error, 'user_oauth_connections_user_provider_key')) {
    return new AppError('oauth:already_linked', undefined, { cause: error });
  }
  return undefined;
}
