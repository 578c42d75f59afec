import { isUuid } from '@latchkey/account-fields';
import { AppError } from '@latchkey/errors';

/** Codes and states are opaque provider strings; this bound only keeps absurd input out of Redis and logs. */
const MAX_OPAQUE_LENGTH = 2_048;

/** A user id as identity.v1 issues them; anything else is a caller error, not an unknown user. */
export function requireUserId(value: string, field = 'user_id'): string {
  if (!isUuid(value)) throw AppError.validation([{ field, message: 'must be a UUID' }]);
  return value.toLowerCase();
}

/** A non-empty opaque value passed on from the provider or from an earlier answer. */
export function requireOpaque(value: string, field: string): string {
  if (value.length === 0 || value.length > MAX_OPAQUE_LENGTH) {
    throw AppError.validation([{ field, message: `must be 1-${MAX_OPAQUE_LENGTH} characters` }]);
  }
  return value;
}
