import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError, keyIdOf } from './secret-box';

const purpose = 'test';
const context = 'owner:0190b6c4-0000-7000-8000-000000000001';

describe('SecretBox', () => {
  const key = randomBytes(32);
  const secret = randomBytes(20);

  it('round-trips a secret and never stores it in clear', () => {
    const box = new SecretBox(purpose, key);
    const sealed = box.seal(secret, context);
    expect(sealed.keyId).toBe(keyIdOf(key, purpose));
    expect(sealed.ciphertext).toHaveLength(12 + 16 + secret.length);
    expect(sealed.ciphertext.includes(secret)).toBe(false);
    expect(box.open(sealed, context).equals(secret)).toBe(true);
  });

  it('uses a fresh IV each time', () => {
    const box = new SecretBox(purpose, key);
    expect(box.seal(secret, context).ciphertext.equals(box.seal(secret, context).ciphertext)).toBe(false);
  });

  it('detects tampering with any byte', () => {
    const box = new SecretBox(purpose, key);
    const sealed = box.seal(secret, context);
    for (let index = 0; index < sealed.ciphertext.length; index += 1) {
      const tampered = Buffer.from(sealed.ciphertext);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(() => box.open({ keyId: sealed.keyId, ciphertext: tampered }, context)).toThrow(SecretBoxError);
    }
    expect(() => box.open({ keyId: sealed.keyId, ciphertext: sealed.ciphertext.subarray(0, 20) }, context)).toThrow(
      SecretBoxError,
    );
  });

  it("refuses a secret moved to another user's context", () => {
    const box = new SecretBox(purpose, key);
    const sealed = box.seal(secret, context);
    expect(() => box.open(sealed, 'owner:0190b6c4-0000-7000-8000-000000000002')).toThrow(SecretBoxError);
  });

  it('opens secrets sealed with a previous key after rotation, and seals with the new one', () => {
    const oldBox = new SecretBox(purpose, key);
    const sealedBefore = oldBox.seal(secret, context);
    const newKey = randomBytes(32);
    const rotated = new SecretBox(purpose, newKey, [key]);
    expect(rotated.isStale(sealedBefore)).toBe(true);
    expect(rotated.open(sealedBefore, context).equals(secret)).toBe(true);
    const sealedAfter = rotated.seal(secret, context);
    expect(sealedAfter.keyId).toBe(keyIdOf(newKey, purpose));
    expect(rotated.isStale(sealedAfter)).toBe(false);
    // The old key alone cannot open what the new key sealed.
    expect(() => oldBox.open(sealedAfter, context)).toThrow(/no configured key has id/);
  });

  it('names the key id, never key or secret, in its errors', () => {
    const box = new SecretBox(purpose, key);
    const sealed = box.seal(secret, context);
    const tampered = { keyId: sealed.keyId, ciphertext: Buffer.concat([sealed.ciphertext, Buffer.from([0])]) };
    let message = '';
    try {
      box.open(tampered, context);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(sealed.keyId);
    for (const material of [key, secret]) {
      expect(message).not.toContain(material.toString('hex'));
      expect(message).not.toContain(material.toString('base64'));
    }
  });

  it('names one key differently for each purpose', () => {
    expect(keyIdOf(key, 'totp')).not.toBe(keyIdOf(key, 'sso'));
    expect(new SecretBox('totp', key).currentKeyId).toBe(keyIdOf(key, 'totp'));
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new SecretBox(purpose, randomBytes(16))).toThrow(RangeError);
  });
});
