import { createHash } from 'node:crypto';
import { generateOpaqueToken, hashOpaqueToken, opaqueTokenDigest, sameTokenHash } from './opaque-token';

test('a token is 256 bits of base64url, and no two are alike', () => {
  const tokens = Array.from({ length: 1_000 }, generateOpaqueToken);
  for (const token of tokens) {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  }
  expect(new Set(tokens).size).toBe(tokens.length);
});

test('the stored hash is the SHA-256 of the token, in text or bytes, and never the token', () => {
  const token = generateOpaqueToken();
  const expected = createHash('sha256').update(token).digest();
  expect(opaqueTokenDigest(token)).toEqual(expected);
  expect(hashOpaqueToken(token)).toBe(expected.toString('base64url'));
  expect(hashOpaqueToken(token)).not.toContain(token);
});

test('hashes compare equal only when they are equal, whatever their lengths', () => {
  const hash = hashOpaqueToken('a');
  expect(sameTokenHash(hash, hashOpaqueToken('a'))).toBe(true);
  expect(sameTokenHash(hash, hashOpaqueToken('b'))).toBe(false);
  expect(sameTokenHash(hash, hash.slice(1))).toBe(false);
  expect(sameTokenHash('', '')).toBe(true);
});
