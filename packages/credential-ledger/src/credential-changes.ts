import type pg from 'pg';
import { withTransaction } from '@latchkey/db';
import type { RequestContext } from '@latchkey/grpc-kit';
import { lockAccounts } from './account-locks';
import type { CredentialOwner, IdentityClient } from './credential-owner';
import { settleAccounts } from './settlement';

/** The reservations a change of one account's credentials makes in identity's ledger, before it writes its own rows. */
export interface LedgerReservations {
  /** identity.v1 ReserveCredential: the credential about to be stored is pending. */
  reserve(reference: string, options?: { readonly openedAccount?: boolean }): Promise<void>;
  /**
   * identity.v1 ReserveCredentialRemoval: refuses the last way in
   * (passkey:last_login_method, oauth:last_login_method), else the
   * credential about to be deleted is removing.
   */
  reserveRemoval(reference: string): Promise<void>;
}

/**
 * Changes one account's credentials in the unit as identity's ledger
 * requires (docs/architecture.md, "The credential ledger"): with the
 * account locked, `change` checks the unit's rows, reserves in the ledger
 * what it is about to add or delete, and writes its rows, all in one
 * transaction. Then, once it committed or once it had reserved anything,
 * the account is settled, which commits the reservations or rolls them back
 * from what the unit holds. A failure to settle is logged, not raised: the
 * change is made (or not) whatever the ledger says, reservations err on the
 * safe side, and the unit's sweep settles the account.
 */
export async function changeCredentials<T>(
  deps: { readonly pool: pg.Pool; readonly identity: IdentityClient },
  owner: CredentialOwner,
  userId: string,
  change: (db: pg.PoolClient, ledger: LedgerReservations) => Promise<T>,
  context: RequestContext,
): Promise<T> {
  let reserved = false;
  const named = { userId, kind: owner.kind };
  const ledger: LedgerReservations = {
    async reserve(reference, options = {}) {
      reserved = true;
      await deps.identity.reserveCredential({ ...named, reference, openedAccount: options.openedAccount ?? false }, context);
    },
    async reserveRemoval(reference) {
      reserved = true;
      await deps.identity.reserveCredentialRemoval({ ...named, reference }, context);
    },
  };
  const settle = () =>
    settleAccounts(deps, owner, [userId], context).catch((error: unknown) =>
      context.logger.warn({ err: error, user_id: userId }, 'could not settle the credential ledger now; the sweep will'),
    );
  let outcome: T;
  try {
    outcome = await withTransaction(deps.pool, context, async (db) => {
      await lockAccounts(db, owner, [userId]);
      return change(db, ledger);
    });
  } catch (error) {
    if (reserved) await settle();
    throw error;
  }
  await settle();
  return outcome;
}
