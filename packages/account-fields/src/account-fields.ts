/**
 * The account fields of docs/api.md, "Validation rules", in one place: identity enforces
 * them as their owner, the gateway checks and documents them at the HTTP
 * edge, and oauth and the gateway's limits compare emails the same way.
 * Ids (docs/api.md, "Responses") are checked here too, by every unit that
 * takes one.
 */

/** Any UUID version in either case, as PostgreSQL's uuid type reads it: a malformed id is bad input, not a database error. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export const HANDLE_PATTERN = /^[A-Za-z0-9_]{3,32}$/;
export const HANDLE_RULE = 'must be 3-32 characters of A-Z, a-z, 0-9 and _';

export const MAX_EMAIL_LENGTH = 254;
/** RFC 5321, 4.5.3.1.1: longer local parts are refused by mail servers. */
export const MAX_EMAIL_LOCAL_PART_LENGTH = 64;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const PASSWORD_RULE = `must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`;

/** Emails compare, and are stored, trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * Why a new address (registration, an email change, a provider's address)
 * could not receive mail, or undefined when it could: a local part over 64
 * octets, or a domain that is not a host name (RFC 1123 labels of 1-63
 * letters, digits and inner hyphens, at most 253 characters, at least two
 * labels, a top-level label that is not all digits). The general shape
 * (one `@`, allowed characters) is checked separately; addresses already
 * stored are looked up whatever their shape, so that none is stranded.
 */
export function undeliverableEmailReason(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const localPart = email.slice(0, Math.max(at, 0));
  const domain = email.slice(at + 1);
  if (new TextEncoder().encode(localPart).length > MAX_EMAIL_LOCAL_PART_LENGTH) {
    return `must have at most ${MAX_EMAIL_LOCAL_PART_LENGTH} characters before the @`;
  }
  const labels = domain.split('.');
  const isHostName =
    domain.length <= 253 &&
    labels.length >= 2 &&
    labels.every((label) => HOST_LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!);
  return isHostName ? undefined : 'must have a host name after the @';
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
