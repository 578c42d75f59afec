import { z } from 'zod';
import { AppError, type FieldError } from '@latchkey/errors';
import {
  HANDLE_PATTERN,
  HANDLE_RULE,
  isPasswordLengthValid,
  MAX_EMAIL_LENGTH,
  normalizeEmail,
  normalizeHandle,
  normalizePassword,
  PASSWORD_RULE,
  undeliverableEmailReason,
} from '@latchkey/account-fields';

export { normalizeEmail, normalizeHandle } from '@latchkey/account-fields';

/** Identity enforces the account fields (packages/account-fields) as their owner. */
const emailShape = z.email();

export function checkHandle(handle: string, field = 'handle'): FieldError[] {
  return HANDLE_PATTERN.test(handle) ? [] : [{ field, message: HANDLE_RULE }];
}

export function checkEmail(email: string, field = 'email'): FieldError[] {
  const normalized = normalizeEmail(email);
  if (normalized.length > MAX_EMAIL_LENGTH) return [{ field, message: `must be at most ${MAX_EMAIL_LENGTH} characters` }];
  return emailShape.safeParse(normalized).success ? [] : [{ field, message: 'must be an email address' }];
}

/** An address about to be stored must also be able to receive mail; lookups take any stored shape. */
export function checkNewEmail(email: string, field = 'email'): FieldError[] {
  const shape = checkEmail(email, field);
  if (shape.length > 0) return shape;
  const reason = undeliverableEmailReason(normalizeEmail(email));
  return reason ? [{ field, message: reason }] : [];
}

/** Length counts Unicode code points of the normalised form, as the hash sees it. */
export function checkPassword(
  password: string,
  account: { email: string; handle: string },
  field = 'password',
): FieldError[] {
  if (!isPasswordLengthValid(password)) return [{ field, message: PASSWORD_RULE }];
  const lowered = normalizePassword(password).toLowerCase();
  if (lowered === normalizeEmail(account.email) || lowered === normalizeHandle(account.handle)) {
    return [{ field, message: 'must not be the email or the handle' }];
  }
  return [];
}

/** Throws one validation error listing every failed field. */
export function assertValid(...checks: FieldError[][]): void {
  const fields = checks.flat();
  if (fields.length > 0) throw AppError.validation(fields);
}
