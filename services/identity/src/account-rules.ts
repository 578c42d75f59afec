import { z } from 'zod';
import { AppError, type FieldError } from '@latchkey/errors';
import { normalizePassword } from './password-hasher';

/** Field rules of docs/api.md part 2, enforced here because identity is their owner. */
const HANDLE_PATTERN = /^[A-Za-z0-9_]{3,32}$/;
const MAX_EMAIL_LENGTH = 254;
const emailShape = z.email();

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function normalizeHandle(handle: string): string {
  return handle.toLowerCase();
}

export function checkHandle(handle: string, field = 'handle'): FieldError[] {
  return HANDLE_PATTERN.test(handle) ? [] : [{ field, message: 'must be 3-32 characters of A-Z, a-z, 0-9 and _' }];
}

export function checkEmail(email: string, field = 'email'): FieldError[] {
  const normalized = normalizeEmail(email);
  if (normalized.length > MAX_EMAIL_LENGTH) return [{ field, message: `must be at most ${MAX_EMAIL_LENGTH} characters` }];
  return emailShape.safeParse(normalized).success ? [] : [{ field, message: 'must be an email address' }];
}

/** Length counts Unicode code points of the normalised form, as the hash sees it. */
export function checkPassword(
  password: string,
  account: { email: string; handle: string },
  field = 'password',
): FieldError[] {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  if (length < 8 || length > 128) return [{ field, message: 'must be 8-128 characters' }];
  const lowered = normalized.toLowerCase();
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
