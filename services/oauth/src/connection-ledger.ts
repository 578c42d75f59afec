import { identityV1 } from '@latchkey/contracts';
import type { MethodOwner } from '@latchkey/sign-in-methods';
import type { ProviderName } from './providers/provider';

const PROVIDER = identityV1.SignInMethodKind.SIGN_IN_METHOD_KIND_PROVIDER;

/** A connection as identity.v1's ledger of sign-in methods names it: an account has one per provider. */
export function connectionMethod(userId: string, provider: ProviderName) {
  return { userId, kind: PROVIDER, reference: provider };
}

/**
 * This unit's side of the ledger (docs/architecture.md, "Sign-in methods"):
 * connections not yet listed in identity. `id` is `user_id:provider`.
 */
export const connectionLedger: MethodOwner = {
  async lockUnlisted(db, limit, id) {
    const [userId, provider] = id?.split(':') ?? [];
    const { rows } = await db.query<{ user_id: string; provider: ProviderName; linked_at: Date }>(
      `SELECT user_id, provider, linked_at FROM oauth.user_oauth_connections
        WHERE listed_at IS NULL AND ($2::uuid IS NULL OR (user_id = $2 AND provider = $3))
        ORDER BY linked_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, userId ?? null, provider ?? null],
    );
    return rows.map((row) => ({ ...connectionMethod(row.user_id, row.provider), addedAt: row.linked_at }));
  },
  async markListed(db, methods) {
    await db.query(
      `UPDATE oauth.user_oauth_connections SET listed_at = now()
        WHERE (user_id, provider) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
      [methods.map((method) => method.userId), methods.map((method) => method.reference)],
    );
  },
};

/** The `id` that `connectionLedger.lockUnlisted` takes for one connection. */
export function connectionKey(userId: string, provider: ProviderName): string {
  return `${userId}:${provider}`;
}
