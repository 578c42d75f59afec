import { createHash, randomBytes } from 'node:crypto';
import { BackupCodeHasher, formatBackupCode, generateBackupCodes, normalizeBackupCode } from './backup-codes';
import { keyIdOf } from '@latchkey/secret-box';
import { TOTP_KEY_PURPOSE } from './totp-secret-box';

describe('generateBackupCodes()', () => {
  it('makes 10 distinct codes of the form xxxxx-xxxxx from [a-z0-9]', () => {
    const codes = generateBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
  });

  it('uses every character of the alphabet', () => {
    const seen = new Set(generateBackupCodes(200).join('').replaceAll('-', ''));
    expect(seen.size).toBe(36);
  });
});

describe('normalizeBackupCode()', () => {
  it('ignores hyphens and case', () => {
    expect(normalizeBackupCode('ab3de-fg7ij')).toBe('ab3defg7ij');
    expect(normalizeBackupCode('AB3DE-FG7IJ')).toBe('ab3defg7ij');
    expect(normalizeBackupCode('AB3DEFG7IJ')).toBe('ab3defg7ij');
    expect(normalizeBackupCode('a-b3de-fg7i-j')).toBe('ab3defg7ij');
  });

  it('refuses anything that is not 10 characters of [a-z0-9]', () => {
    for (const input of ['', 'ab3de-fg7i', 'ab3de-fg7ijk', 'ab3de fg7ij', 'ab3dé-fg7ij', 'ab3de_fg7ij']) {
      expect(normalizeBackupCode(input)).toBeUndefined();
    }
  });

  it('round-trips formatBackupCode()', () => {
    for (const code of generateBackupCodes()) expect(formatBackupCode(normalizeBackupCode(code) as string)).toBe(code);
  });
});

describe('BackupCodeHasher', () => {
  const key = randomBytes(32);

  it('hashes deterministically with a key, not a bare hash', () => {
    const hasher = new BackupCodeHasher(key);
    const first = hasher.hash('ab3defg7ij');
    expect(first.hash).toHaveLength(32);
    expect(first.keyId).toBe(keyIdOf(key, TOTP_KEY_PURPOSE));
    expect(hasher.hash('ab3defg7ij').hash.equals(first.hash)).toBe(true);
    expect(first.hash.equals(createHash('sha256').update('ab3defg7ij').digest())).toBe(false);
    // Another installation's key gives another hash for the same code.
    expect(new BackupCodeHasher(randomBytes(32)).hash('ab3defg7ij').hash.equals(first.hash)).toBe(false);
  });

  it('keeps codes hashed under a previous key findable after rotation', () => {
    const stored = new BackupCodeHasher(key).hash('ab3defg7ij').hash;
    const rotated = new BackupCodeHasher(randomBytes(32), [key]);
    const candidates = rotated.candidates('ab3defg7ij');
    expect(candidates).toHaveLength(2);
    expect(candidates.some((candidate) => candidate.equals(stored))).toBe(true);
    expect(rotated.hash('ab3defg7ij').hash.equals(stored)).toBe(false);
  });
});
