import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A secret sealed by SecretBox: what the database row (or the Redis record) keeps. */
export interface SealedSecret {
  /** Names the key that sealed it, so that keys can rotate. */
  readonly keyId: string;
  /** IV (12 bytes) ‖ GCM tag (16 bytes) ‖ ciphertext. */
  readonly ciphertext: Buffer;
}

/** Thrown when a sealed secret cannot be opened; carries no secret material. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/**
 * A short, stable name for a key: the first 8 bytes of a SHA-256 separated
 * by the key's purpose (`totp`, `sso`), so that one key given to two units
 * would not show it by equal ids. It can be stored and logged; it does not
 * help to guess a 256-bit key.
 */
export function keyIdOf(key: Buffer, purpose: string): string {
  return createHash('sha256').update(`latchkey/${purpose}/key-id/v1\0`).update(key).digest().subarray(0, 8).toString('hex');
}

/**
 * AES-256-GCM encryption of secrets at rest: TOTP secrets (docs/api.md,
 * "Second factor (TOTP)") and SSO connection secrets (docs/sso.md). Sealing
 * always uses the current key; opening accepts the current and the previous
 * keys, found by the stored key id.
 *
 * `context` is bound as additional authenticated data (the owner's id): a
 * sealed secret copied onto another row does not open there.
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  /** `purpose` names what the keys seal, for their ids (keyIdOf). */
  constructor(purpose: string, currentKey: Buffer, previousKeys: readonly Buffer[] = []) {
    for (const key of [currentKey, ...previousKeys]) {
      if (key.length !== KEY_BYTES) throw new RangeError(`encryption keys must be ${KEY_BYTES} bytes`);
      const id = keyIdOf(key, purpose);
      if (!this.keys.has(id)) this.keys.set(id, key);
    }
    this.currentKeyId = keyIdOf(currentKey, purpose);
  }

  seal(plaintext: Buffer, context: string): SealedSecret {
    const key = this.keys.get(this.currentKeyId) as Buffer;
    // A random 96-bit IV per message, as NIST SP 800-38D recommends for GCM.
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: this.currentKeyId, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]) };
  }

  open(sealed: SealedSecret, context: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new SecretBoxError(`no configured key has id ${sealed.keyId}`);
    if (sealed.ciphertext.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
    const iv = sealed.ciphertext.subarray(0, IV_BYTES);
    const tag = sealed.ciphertext.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const body = sealed.ciphertext.subarray(IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      // OpenSSL's message says nothing useful; the cause is tampering or the wrong key.
      throw new SecretBoxError(`sealed secret failed authentication (key id ${sealed.keyId})`);
    }
  }

  /** Whether a secret was sealed with a key other than the current one and should be sealed again. */
  isStale(sealed: Pick<SealedSecret, 'keyId'>): boolean {
    return sealed.keyId !== this.currentKeyId;
  }
}
