import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOrCreateStackSecrets } from './stack-secrets';

describe('readOrCreateStackSecrets', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'stack-secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a 32-byte base64 TOTP key once, readable only by its owner, and keeps it', async () => {
    const file = path.join(dir, '.data', 'stack-secrets.json');
    const first = await readOrCreateStackSecrets(file);
    expect(Buffer.from(first.TOTP_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(first);
  });

  it('gives stacks that start at once the same key', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    const all = await Promise.all(Array.from({ length: 8 }, () => readOrCreateStackSecrets(file)));
    expect(new Set(all.map((secrets) => secrets.TOTP_ENCRYPTION_KEY)).size).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(all[0]);
  });

  it('refuses a file it cannot use instead of replacing the key', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    writeFileSync(file, '{"TOTP_ENCRYPTION_KEY":"c2hvcnQ="}');
    await expect(readOrCreateStackSecrets(file)).rejects.toThrow('TOTP_ENCRYPTION_KEY: must be 32 bytes, base64');
    writeFileSync(file, 'not json');
    await expect(readOrCreateStackSecrets(file)).rejects.toThrow('delete it to generate new secrets');
  });
});
