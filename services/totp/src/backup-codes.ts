import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { keyIdOf } from '@latchkey/secret-box';
import { TOTP_KEY_PURPOSE } from './totp-secret-box';

/** Codes per generation, at enable and at every regeneration (docs/api.md, "Second factor (TOTP)"). */
export const BACKUP_CODE_COUNT = 10;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const CODE_LENGTH = 10;
const NORMALIZED = /^[a-z0-9]{10}$/;
/** The largest multiple of 36 below 256: bytes at or above it are drawn again, so every character is equally likely. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** 10 characters of [a-z0-9] (about 51.7 bits), one character at a time from rejection-sampled random bytes. */
function randomCodeCharacters(): string {
  let code = '';
  while (code.length < CODE_LENGTH) {
    for (const byte of randomBytes(CODE_LENGTH * 2)) {
      if (byte < UNBIASED_LIMIT && code.length < CODE_LENGTH) code += ALPHABET[byte % ALPHABET.length];
    }
  }
  return code;
}

/** Shows a normalised code as users read it: `xxxxx-xxxxx` (docs/api.md, "Validation rules"). */
export function formatBackupCode(normalized: string): string {
  return `${normalized.slice(0, 5)}-${normalized.slice(5)}`;
}

/** A fresh set of distinct codes, formatted for display. */
export function generateBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(randomCodeCharacters());
  return [...codes].map(formatBackupCode);
}

/**
 * The canonical form of a typed code, or undefined when it cannot be one.
 * docs/api.md, "Validation rules": hyphen and case are ignored on input.
 */
export function normalizeBackupCode(input: string): string | undefined {
  const normalized = input.replaceAll('-', '').toLowerCase();
  return NORMALIZED.test(normalized) ? normalized : undefined;
}

/** One stored backup code: its keyed hash and the id of the key behind it. */
export interface BackupCodeHash {
  readonly keyId: string;
  readonly hash: Buffer;
}

/**
 * Keyed hashes of backup codes. A code has only ~52 bits, so a plain hash
 * in a leaked table could be brute-forced; HMAC-SHA256 under a key derived
 * from TOTP_ENCRYPTION_KEY (HKDF, RFC 5869) makes the table useless without
 * that key. The hash is deterministic, so a code is found and used up by
 * one `DELETE ... WHERE code_hash = ANY(...)`.
 *
 * After a key rotation, codes hashed under a previous key stay valid: a
 * typed code is hashed under every configured key.
 */
export class BackupCodeHasher {
  private readonly keys: { id: string; hmacKey: Buffer }[];

  constructor(currentKey: Buffer, previousKeys: readonly Buffer[] = []) {
    const seen = new Set<string>();
    this.keys = [];
    for (const key of [currentKey, ...previousKeys]) {
      const id = keyIdOf(key, TOTP_KEY_PURPOSE);
      if (seen.has(id)) continue;
      seen.add(id);
      // A separate key for a separate purpose: the AES key itself never keys an HMAC.
      const hmacKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'latchkey/totp/backup-code-hmac/v1', 32));
      this.keys.push({ id, hmacKey });
    }
  }

  /** The hash to store for a code, under the current key. */
  hash(normalized: string): BackupCodeHash {
    const current = this.keys[0] as { id: string; hmacKey: Buffer };
    return { keyId: current.id, hash: this.digest(current.hmacKey, normalized) };
  }

  /** Every hash a stored copy of this code could have, one per configured key. */
  candidates(normalized: string): Buffer[] {
    return this.keys.map((key) => this.digest(key.hmacKey, normalized));
  }

  private digest(hmacKey: Buffer, normalized: string): Buffer {
    return createHmac('sha256', hmacKey).update(normalized, 'utf8').digest();
  }
}
