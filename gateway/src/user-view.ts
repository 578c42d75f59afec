import type { identityV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { userSchema } from './schemas/account-schemas';

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
