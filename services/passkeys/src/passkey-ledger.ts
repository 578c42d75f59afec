import { identityV1 } from '@latchkey/contracts';
import type { MethodOwner } from '@latchkey/sign-in-methods';

const PASSKEY = identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PASSKEY;

/** A passkey as identity.v1's ledger of sign-in methods names it. */
export function passkeyMethod(userId: string, passkeyId: string) {
  return { userId, kind: PASSKEY, reference: passkeyId };
}

/** This unit's side of the ledger (docs/architecture.md, "Sign-in methods"): passkeys not yet listed in identity. */
export const passkeyLedger: MethodOwner = {
  async lockUnlisted(db, limit, id) {
    const { rows } = await db.query<{ id: string; user_id: string; created_at: Date }>(
      `SELECT id, user_id, created_at FROM passkeys.passkeys
        WHERE listed_at IS NULL AND ($2::uuid IS NULL OR id = $2)
        ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, id ?? null],
    );
    return rows.map((row) => ({ ...passkeyMethod(row.user_id, row.id), addedAt: row.created_at }));
  },
  async markListed(db, methods) {
    await db.query('UPDATE passkeys.passkeys SET listed_at = now() WHERE id = ANY($1::uuid[])', [methods.map((method) => method.reference)]);
  },
};
