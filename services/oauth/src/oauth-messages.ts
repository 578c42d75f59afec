import { oauthV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ConnectionRecord } from './connection-store';
import type { AuthorizationPurpose } from './oauth-state';
import type { ProviderName } from './providers/provider';
import type { LoginOutcome } from './user-resolution';

const { Provider, AuthorizationPurpose: Purpose } = oauthV1;

const providerMessages: Record<ProviderName, oauthV1.Provider> = {
  google: Provider.PROVIDER_GOOGLE,
  github: Provider.PROVIDER_GITHUB,
};

/** The implemented provider an enum value names; reserved and unknown values are oauth:provider_not_found. */
export function providerFromMessage(value: oauthV1.Provider): ProviderName {
  const entry = Object.entries(providerMessages).find(([, message]) => message === value);
  if (!entry) throw new AppError('oauth:provider_not_found');
  return entry[0] as ProviderName;
}

export function providerToMessage(name: ProviderName): oauthV1.Provider {
  return providerMessages[name];
}

export function purposeFromMessage(value: oauthV1.AuthorizationPurpose): AuthorizationPurpose {
  if (value === Purpose.AUTHORIZATION_PURPOSE_LOGIN) return 'login';
  if (value === Purpose.AUTHORIZATION_PURPOSE_LINK) return 'link';
  if (value === Purpose.AUTHORIZATION_PURPOSE_REAUTHENTICATE) return 'reauthenticate';
  throw AppError.validation([{ field: 'purpose', message: 'must be login, link or reauthenticate' }]);
}

export function toConnectionMessage(record: ConnectionRecord): oauthV1.Connection {
  return {
    provider: providerToMessage(record.provider),
    providerUserId: record.provider_user_id,
    email: record.email,
    linkedAt: record.linked_at,
  };
}

export function toLoginMessage(outcome: LoginOutcome): oauthV1.CompleteLoginResponse {
  if (outcome.kind === 'signed_in') {
    return { signedIn: { userId: outcome.user.id, linkedNow: outcome.linkedNow, user: outcome.user, passwordDropped: outcome.passwordDropped } };
  }
  return {
    pendingSignup: {
      pendingToken: outcome.pendingToken,
      email: outcome.email,
      name: outcome.name,
      avatarUrl: outcome.avatarUrl,
      expiresAt: outcome.expiresAt,
    },
  };
}
