import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: unguessable and safe in JSON and URLs. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored instead of a token: its SHA-256, base64url. A read of
 * Redis yields nothing a client could present.
 */
export function hashOpaqueToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Compares two token hashes in constant time. */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
