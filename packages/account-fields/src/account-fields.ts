/**
 * The account fields of docs/api.md, "Validation rules", in one place: identity enforces
 * them as their owner, the gateway checks and documents them at the HTTP
 * edge, and oauth and the gateway's limits compare emails the same way.
 */

export const HANDLE_PATTERN = /^[A-Za-z0-9_]{3,32}$/;
export const HANDLE_RULE = 'must be 3-32 characters of A-Z, a-z, 0-9 and _';

export const MAX_EMAIL_LENGTH = 254;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const PASSWORD_RULE = `must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`;

/** Emails compare, and are stored, trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Handles are accepted in any case and stored lower-cased. */
export function normalizeHandle(handle: string): string {
  return handle.toLowerCase();
}

/** The same characters typed on different keyboards must give the same password. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** A password's length as the hash sees it: code points of its normalised form, not UTF-16 units. */
export function passwordLength(password: string): number {
  return [...normalizePassword(password)].length;
}

export function isPasswordLengthValid(password: string): boolean {
  const length = passwordLength(password);
  return length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH;
}
