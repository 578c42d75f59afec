import { identityV1 } from '@latchkey/contracts';
import type { CredentialOwner } from '@latchkey/credential-ledger';

/**
 * This unit's side of identity's credential ledger (docs/architecture.md,
 * "The credential ledger"): every connection, by its provider's name (an
 * account has one per provider), with when it was linked and whether the
 * account was created with it. A password reset takes back recent
 * connections: they go, remembered under the reset for its notice
 * (reset-removals.ts), all but the one the account was created with.
 */
export const connectionLedger: CredentialOwner = {
  schema: 'oauth',
  kind: identityV1.CredentialKind.CREDENTIAL_KIND_PROVIDER,
  async held(db, userIds) {
    const { rows } = await db.query<{ user_id: string; provider: string; linked_at: Date; created_account: boolean }>(
      'SELECT user_id, provider, linked_at, created_account FROM oauth.user_oauth_connections WHERE user_id = ANY($1::uuid[]) ORDER BY linked_at, provider',
      [[...userIds]],
    );
    return userIds.map((userId) => ({
      userId,
      credentials: rows
        .filter((row) => row.user_id === userId.toLowerCase())
        .map((row) => ({ reference: row.provider, addedAt: row.linked_at, openedAccount: row.created_account })),
    }));
  },
  async takeBack(db, takeBacks) {
    await db.query(
      `WITH removed AS (
         DELETE FROM oauth.user_oauth_connections AS connection
          USING unnest($1::uuid[], $2::text[], $3::uuid[]) AS taken (user_id, provider, reset_id)
          WHERE connection.user_id = taken.user_id AND connection.provider = taken.provider AND NOT connection.created_account
         RETURNING taken.reset_id, connection.user_id, connection.provider, connection.provider_user_id, connection.linked_at
       )
       INSERT INTO oauth.reset_removals (reset_id, user_id, provider, provider_user_id, linked_at)
       SELECT reset_id, user_id, provider, provider_user_id, linked_at FROM removed
       ON CONFLICT DO NOTHING`,
      [takeBacks.map((taken) => taken.userId), takeBacks.map((taken) => taken.reference), takeBacks.map((taken) => taken.resetId)],
    );
  },
};
