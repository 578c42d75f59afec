import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, base64url: unguessable and safe in URLs and JSON. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What Redis keys carry instead of a token: its SHA-256, base64url. A read
 * of Redis yields nothing a client could present.
 */
export function hashOpaqueToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}
