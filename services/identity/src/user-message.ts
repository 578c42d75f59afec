import type { adminV1, identityV1 } from '@latchkey/contracts';
import type { UserRecord } from './user-store';

/** The account as other units see it: never the password hash. */
export function toUserMessage(user: UserRecord): identityV1.User {
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    emailVerifiedAt: user.email_verified_at ?? undefined,
    hasPassword: user.password_hash !== null,
    createdAt: user.created_at,
    sessionEpoch: user.session_epoch,
    disabledAt: user.disabled_at ?? undefined,
    passkeysCount: user.passkeys_count,
    secondFactorOff: user.second_factor_off,
    singleFactorSuffices: user.single_factor_suffices,
  };
}

/** The account as an administrator sees it (admin.v1): why it is disabled, and nothing other units work with. */
export function toAdminUserMessage(user: UserRecord): adminV1.User {
  const {
    sessionEpoch: _sessionEpoch,
    passkeysCount: _passkeysCount,
    secondFactorOff: _secondFactorOff,
    singleFactorSuffices: _singleFactorSuffices,
    ...account
  } = toUserMessage(user);
  return { ...account, disabledReason: user.disabled_reason ?? '' };
}
