import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * 256 random bits, base64url (43 characters): unguessable, and safe in a
 * cookie, a URL and JSON. Session cookies, mailed links, OAuth states,
 * pending signups and TOTP setup and login tokens are all of this kind.
 */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored instead of a token: its SHA-256, base64url. A read of the
 * store yields nothing a client could present, and 256 random bits need no
 * salt or slow hash.
 */
export function hashOpaqueToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** The same SHA-256 as raw bytes, for a `bytea` column. */
export function opaqueTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Compares two token hashes in constant time. */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
