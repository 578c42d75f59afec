import type pg from 'pg';
import type { CredentialOwner } from './credential-owner';

/**
 * Takes, until `db`'s transaction ends, the owner's lock of each account:
 * every change of an account's credentials in the unit, and every
 * settlement of the account with identity's ledger, holds it, so that a
 * settlement reads the unit's rows when no change is between reserving in
 * the ledger and committing its own rows. Transaction-scoped advisory locks
 * hold no session, as PgBouncer in transaction mode requires; in id order,
 * so that two batches never wait for each other.
 */
export async function lockAccounts(db: pg.ClientBase, owner: Pick<CredentialOwner, 'schema'>, userIds: readonly string[]): Promise<void> {
  await db.query(
    `SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || user_id, 0))
       FROM (SELECT DISTINCT lower(user_id) AS user_id FROM unnest($2::text[]) AS account (user_id) ORDER BY 1) AS accounts`,
    [owner.schema, [...userIds]],
  );
}
