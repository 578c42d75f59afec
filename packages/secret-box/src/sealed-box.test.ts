import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SecretBoxError } from './secret-box';
import { openSealed, sealTo } from './sealed-box';

const context = 'webhook:0190b6c4-0000-7000-8000-000000000001';

describe('sealTo / openSealed', () => {
  const recipient = generateKeyPairSync('x25519');
  const secret = randomBytes(32);

  it('opens with the private key what was sealed to its public key, and never holds the secret in clear', () => {
    const sealed = sealTo(recipient.publicKey, secret, context);
    expect(sealed).toHaveLength(44 + 12 + 16 + secret.length);
    expect(sealed.includes(secret)).toBe(false);
    expect(openSealed(recipient.privateKey, sealed, context).equals(secret)).toBe(true);
  });

  it('uses a fresh ephemeral key each time', () => {
    expect(sealTo(recipient.publicKey, secret, context).equals(sealTo(recipient.publicKey, secret, context))).toBe(false);
  });

  it('does not open with another private key, for another owner, or after any byte changed', () => {
    const sealed = sealTo(recipient.publicKey, secret, context);
    expect(() => openSealed(generateKeyPairSync('x25519').privateKey, sealed, context)).toThrow(SecretBoxError);
    expect(() => openSealed(recipient.privateKey, sealed, `${context}x`)).toThrow(SecretBoxError);
    for (let index = 0; index < sealed.length; index += 1) {
      const tampered = Buffer.from(sealed);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(() => openSealed(recipient.privateKey, tampered, context)).toThrow(SecretBoxError);
    }
    expect(() => openSealed(recipient.privateKey, sealed.subarray(0, 60), context)).toThrow('truncated');
  });

  it('refuses keys of another kind, or the wrong half of the pair', () => {
    expect(() => sealTo(generateKeyPairSync('ed25519').publicKey, secret, context)).toThrow(TypeError);
    expect(() => sealTo(recipient.privateKey, secret, context)).toThrow(TypeError);
    expect(() => openSealed(recipient.publicKey, sealTo(recipient.publicKey, secret, context), context)).toThrow(TypeError);
  });
});
