import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSealed, sealTo } from '@latchkey/secret-box';
import { readOrCreateStackSecrets, sealingPublicKeyOf } from './stack-secrets';

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

  it('gives a file from before service tokens a signing key, keeping its TOTP key', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    const totpKey = Buffer.alloc(32, 7).toString('base64');
    writeFileSync(file, JSON.stringify({ TOTP_ENCRYPTION_KEY: totpKey }));
    const completed = await readOrCreateStackSecrets(file);
    expect(completed.TOTP_ENCRYPTION_KEY).toBe(totpKey);
    const keys = JSON.parse(completed.AUTH_JWT_SIGNING_KEYS) as Record<string, string>[];
    expect(keys).toEqual([
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: expect.any(String), d: expect.any(String), x: expect.any(String) }),
      expect.objectContaining({ kty: 'RSA', kid: expect.any(String), n: expect.any(String), d: expect.any(String), qi: expect.any(String) }),
      expect.objectContaining({ kty: 'EC', crv: 'P-256', kid: expect.any(String), d: expect.any(String) }),
    ]);
    // RS256 needs 2048 bits or more (docs/oidc.md, "Keys").
    expect(Buffer.from(keys[1]!.n!, 'base64url').length * 8).toBeGreaterThanOrEqual(2048);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(completed);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps a webhook sealing key, and adds one to files made before webhooks, whose public half seals what it opens', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    const first = await readOrCreateStackSecrets(file);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(first);
    const { WEBHOOK_SEALING_PRIVATE_KEY: _dropped, ...beforeWebhooks } = first;
    writeFileSync(file, JSON.stringify(beforeWebhooks));
    const completed = await readOrCreateStackSecrets(file);
    expect(completed).toMatchObject(beforeWebhooks);
    expect(completed.WEBHOOK_SEALING_PRIVATE_KEY).not.toBe(first.WEBHOOK_SEALING_PRIVATE_KEY);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(completed);
    const sealed = sealTo(createPublicKey({ key: Buffer.from(sealingPublicKeyOf(completed.WEBHOOK_SEALING_PRIVATE_KEY), 'base64'), format: 'der', type: 'spki' }), Buffer.from('whsec_x'), 'endpoint');
    const privateKey = createPrivateKey({ key: Buffer.from(completed.WEBHOOK_SEALING_PRIVATE_KEY, 'base64'), format: 'der', type: 'pkcs8' });
    expect(openSealed(privateKey, sealed, 'endpoint').toString()).toBe('whsec_x');
  });

  it('adds an RSA and a P-256 key to signing keys made before RS256 and ES256 ID tokens, keeping the Ed25519 one', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    const first = await readOrCreateStackSecrets(file);
    const [ed25519] = JSON.parse(first.AUTH_JWT_SIGNING_KEYS) as Record<string, string>[];
    writeFileSync(file, JSON.stringify({ ...first, AUTH_JWT_SIGNING_KEYS: JSON.stringify([ed25519]) }));
    const completed = await readOrCreateStackSecrets(file);
    const keys = JSON.parse(completed.AUTH_JWT_SIGNING_KEYS) as Record<string, string>[];
    expect(keys[0]).toEqual(ed25519);
    expect(keys.slice(1)).toEqual([expect.objectContaining({ kty: 'RSA', d: expect.any(String) }), expect.objectContaining({ kty: 'EC', crv: 'P-256', d: expect.any(String) })]);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(completed);
  });

  it('adds only the RSA key to signing keys made before RS256 ID tokens, keeping the others and their order', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    const first = await readOrCreateStackSecrets(file);
    const before = (JSON.parse(first.AUTH_JWT_SIGNING_KEYS) as Record<string, string>[]).filter((key) => key.kty !== 'RSA');
    writeFileSync(file, JSON.stringify({ ...first, AUTH_JWT_SIGNING_KEYS: JSON.stringify(before) }));
    const completed = await readOrCreateStackSecrets(file);
    const keys = JSON.parse(completed.AUTH_JWT_SIGNING_KEYS) as Record<string, string>[];
    expect(keys.slice(0, 2)).toEqual(before);
    expect(keys.slice(2)).toEqual([expect.objectContaining({ kty: 'RSA', kid: expect.stringMatching(/^local-rs256-/) })]);
    await expect(readOrCreateStackSecrets(file)).resolves.toEqual(completed);
  });

  it('refuses a file it cannot use instead of replacing the key', async () => {
    const file = path.join(dir, 'stack-secrets.json');
    writeFileSync(file, '{"TOTP_ENCRYPTION_KEY":"c2hvcnQ="}');
    await expect(readOrCreateStackSecrets(file)).rejects.toThrow('TOTP_ENCRYPTION_KEY: must be 32 bytes, base64');
    writeFileSync(file, 'not json');
    await expect(readOrCreateStackSecrets(file)).rejects.toThrow('delete it to generate new secrets');
  });
});
