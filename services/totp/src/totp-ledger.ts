import { identityV1 } from '@latchkey/contracts';
import type { CredentialOwner } from '@latchkey/credential-ledger';

/** An account has one TOTP: it has no name in the ledger. */
export const TOTP_REFERENCE = '';

/**
 * This unit's side of identity's credential ledger (docs/architecture.md,
 * "The credential ledger"): the account's TOTP while it is on, a second
 * factor. The ledger tells a sign-in whether it may skip asking this unit;
 * a password reset takes nothing of it back.
 */
export const totpLedger: CredentialOwner = {
  schema: 'totp',
  kind: identityV1.CredentialKind.CREDENTIAL_KIND_TOTP,
  async held(db, userIds) {
    const { rows } = await db.query<{ user_id: string; enabled_at: Date }>(
      'SELECT user_id, enabled_at FROM totp.totp_credentials WHERE user_id = ANY($1::uuid[])',
      [[...userIds]],
    );
    return userIds.map((userId) => ({
      userId,
      credentials: rows
        .filter((row) => row.user_id === userId.toLowerCase())
        .map((row) => ({ reference: TOTP_REFERENCE, addedAt: row.enabled_at, openedAccount: false })),
    }));
  },
};
