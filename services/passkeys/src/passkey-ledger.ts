import { identityV1 } from '@latchkey/contracts';
import type { CredentialOwner } from '@latchkey/credential-ledger';

/**
 * This unit's side of identity's credential ledger (docs/architecture.md,
 * "The credential ledger"): every passkey, by its id, with when it was
 * registered and whether it is suspected of being cloned. A password reset
 * takes back recent passkeys: they go, remembered under the reset for its
 * notice (reset-removals.ts).
 */
export const passkeyLedger: CredentialOwner = {
  schema: 'passkeys',
  kind: identityV1.CredentialKind.CREDENTIAL_KIND_PASSKEY,
  async held(db, userIds) {
    const { rows } = await db.query<{ id: string; user_id: string; created_at: Date; suspected_clone_at: Date | null }>(
      'SELECT id, user_id, created_at, suspected_clone_at FROM passkeys.passkeys WHERE user_id = ANY($1::uuid[]) ORDER BY created_at, id',
      [[...userIds]],
    );
    return userIds.map((userId) => ({
      userId,
      credentials: rows
        .filter((row) => row.user_id === userId.toLowerCase())
        .map((row) => ({ reference: row.id, addedAt: row.created_at, suspendedAt: row.suspected_clone_at ?? undefined, openedAccount: false })),
    }));
  },
  async takeBack(db, takeBacks) {
    await db.query(
      `WITH removed AS (
         DELETE FROM passkeys.passkeys AS passkey
          USING unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS taken (user_id, passkey_id, reset_id)
          WHERE passkey.user_id = taken.user_id AND passkey.id = taken.passkey_id
         RETURNING taken.reset_id, passkey.user_id, passkey.id, passkey.name, passkey.created_at
       )
       INSERT INTO passkeys.reset_removals (reset_id, user_id, passkey_id, name, registered_at)
       SELECT reset_id, user_id, id, name, created_at FROM removed
       ON CONFLICT DO NOTHING`,
      [takeBacks.map((taken) => taken.userId), takeBacks.map((taken) => taken.reference), takeBacks.map((taken) => taken.resetId)],
    );
  },
};
