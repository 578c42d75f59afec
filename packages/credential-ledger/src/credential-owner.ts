import type pg from 'pg';
import type { identityV1 } from '@latchkey/contracts';
import type { RequestContext, ServiceClient } from '@latchkey/grpc-kit';

export type IdentityClient = ServiceClient<typeof identityV1.IdentityServiceService>;

/**
 * A unit that holds one kind of credential in its own schema: passkeys,
 * oauth's provider connections, totp. Its credential table has a trigger
 * that queues every account whose credentials change in
 * `<schema>.unsettled_accounts` (its migrations), so that the ledger
 * hears of every change, whichever code made it.
 */
export interface CredentialOwner {
  /** The unit's schema: its account locks and its queue of unsettled accounts go by it. */
  readonly schema: string;
  /** The kind of credential it holds. */
  readonly kind: identityV1.CredentialKind;
  /** Every credential of its kind it holds for each of the accounts, read in `db`: one entry per account, empty for none. */
  held(db: pg.ClientBase, userIds: readonly string[]): Promise<identityV1.HeldCredentials[]>;
  /**
   * Deletes, in `db`, the credentials password resets took back, and
   * remembers them under their reset for the reset's notice. A kind that no
   * reset takes back (TOTP) has none.
   */
  takeBack?(db: pg.ClientBase, takeBacks: readonly identityV1.TakeBack[], context: RequestContext): Promise<void>;
}
