import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { SecretBoxError } from './secret-box';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** An X25519 public key in SubjectPublicKeyInfo DER: a 12-byte header and the 32-byte key. */
const X25519_SPKI_BYTES = 44;
const FORMAT = 'latchkey/sealed-box/x25519-hkdf-sha256-aes-256-gcm/v1';

/**
 * Seals a secret to the holder of an X25519 private key: one unit writes
 * it (identity, which makes a webhook secret and shows it once) and only
 * another can open it (the jobs worker, which signs deliveries). A fresh
 * ephemeral key agrees on a shared secret with the recipient's public key
 * (ECDH), HKDF-SHA256 derives the AES-256-GCM key from it, bound to both
 * public keys, and `context` (the owner's id) is authenticated, so that a
 * sealed secret copied onto another row does not open there. The layout is
 * ephemeral public key (SPKI DER, 44 bytes) ‖ IV (12) ‖ tag (16) ‖ ciphertext.
 */
export function sealTo(recipient: KeyObject, plaintext: Buffer, context: string): Buffer {
  if (recipient.asymmetricKeyType !== 'x25519' || recipient.type !== 'public') throw new TypeError('the recipient must be an X25519 public key');
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublic = ephemeral.publicKey.export({ type: 'spki', format: 'der' });
  const key = derive(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }), ephemeralPublic, recipient);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([ephemeralPublic, iv, cipher.getAuthTag(), body]);
}

/** Opens what sealTo sealed to this private key's public key; a SecretBoxError, without secret material, otherwise. */
export function openSealed(recipient: KeyObject, sealed: Buffer, context: string): Buffer {
  if (recipient.asymmetricKeyType !== 'x25519' || recipient.type !== 'private') throw new TypeError('the recipient must be an X25519 private key');
  if (sealed.length < X25519_SPKI_BYTES + IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
  const ephemeralPublic = sealed.subarray(0, X25519_SPKI_BYTES);
  const iv = sealed.subarray(X25519_SPKI_BYTES, X25519_SPKI_BYTES + IV_BYTES);
  const tag = sealed.subarray(X25519_SPKI_BYTES + IV_BYTES, X25519_SPKI_BYTES + IV_BYTES + TAG_BYTES);
  const body = sealed.subarray(X25519_SPKI_BYTES + IV_BYTES + TAG_BYTES);
  try {
    const publicKey = createPublicKey({ key: ephemeralPublic, format: 'der', type: 'spki' });
    const key = derive(diffieHellman({ privateKey: recipient, publicKey }), ephemeralPublic, createPublicKey(recipient));
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    // OpenSSL's message says nothing useful; the cause is tampering, the wrong key or the wrong owner.
    throw new SecretBoxError('sealed secret failed authentication');
  }
}

function derive(shared: Buffer, ephemeralPublic: Buffer, recipient: KeyObject): Buffer {
  // Both public keys in the salt, as in RFC 9180's key schedule: the key belongs to this one exchange.
  const salt = Buffer.concat([ephemeralPublic, recipient.export({ type: 'spki', format: 'der' })]);
  return Buffer.from(hkdfSync('sha256', shared, salt, FORMAT, KEY_BYTES));
}
