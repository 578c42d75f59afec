import type { identityV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { userSchema } from './schemas/account-schemas';
import type { GatewayDeps } from './gateway-deps';

export type UserView = z.output<typeof userSchema>;

/** `{user}` of API.md part 4, from identity's account and the second-factor state. */
export function userView(user: identityV1.User, totpEnabled: boolean): UserView {
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    email_verified: user.emailVerifiedAt !== undefined,
    email_verified_at: user.emailVerifiedAt?.toISOString() ?? null,
    has_password: user.hasPassword,
    totp_enabled: totpEnabled,
    created_at: (user.createdAt ?? new Date(0)).toISOString(),
  };
}

/**
 * The account as API.md shows it. The second factor is the totp service's
 * to know; both answers are needed, so ask both at once.
 */
export async function accountView(
  deps: Pick<GatewayDeps, 'identity' | 'totp'>,
  userId: string,
  requestId: string,
): Promise<UserView> {
  const [{ user }, status] = await Promise.all([
    deps.identity.getUser({ userId }, { requestId }),
    deps.totp.getStatus({ userId }, { requestId }),
  ]);
  return userView(user!, status.enabled);
}

/** The view of an account already at hand, for answers that just changed it. */
export async function viewOf(
  deps: Pick<GatewayDeps, 'totp'>,
  user: identityV1.User,
  requestId: string,
): Promise<UserView> {
  const status = await deps.totp.getStatus({ userId: user.id }, { requestId });
  return userView(user, status.enabled);
}
