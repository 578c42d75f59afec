import { generateKeyPairSync } from 'node:crypto';
import { signingKeyFor, signingKeysSchema } from './signing-keys';

const ed25519 = (kid: string) => ({ kid, ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) });
const rsa = (kid: string, modulusLength = 2048) => ({ kid, ...generateKeyPairSync('rsa', { modulusLength }).privateKey.export({ format: 'jwk' }) });
/** RFC 7518 6.3.2: the members of an RSA private key that are not part of its public key. */
const RSA_PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

describe('AUTH_JWT_SIGNING_KEYS', () => {
  it('reads Ed25519 private JWKs, the first signing, and publishes only their public halves', () => {
    const keys = signingKeysSchema.parse(JSON.stringify([ed25519('new'), ed25519('old')]));
    expect(keys.map((key) => key.kid)).toEqual(['new', 'old']);
    expect(keys[0]!.privateKey.asymmetricKeyType).toBe('ed25519');
    expect(Object.keys(keys[0]!.publicJwk).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });

  it('takes P-256 keys beside Ed25519 ones, for ES256 ID tokens, each algorithm signing with its first key', () => {
    const p256 = (kid: string) => ({ kid, ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) });
    const keys = signingKeysSchema.parse(JSON.stringify([p256('ec-new'), ed25519('ed-new'), p256('ec-old')]));
    expect(signingKeyFor(keys, 'EdDSA')?.kid).toBe('ed-new');
    expect(signingKeyFor(keys, 'ES256')?.kid).toBe('ec-new');
    expect(keys.map((key) => key.publicJwk)).toEqual(expect.arrayContaining([expect.objectContaining({ kid: 'ec-old', alg: 'ES256', crv: 'P-256' })]));
    for (const key of keys) expect(key.publicJwk).not.toHaveProperty('d');
  });

  it('takes RSA keys for RS256, the first signing, and publishes only n and e of them', () => {
    const keys = signingKeysSchema.parse(JSON.stringify([ed25519('ed'), rsa('rsa-new'), rsa('rsa-old', 3072)]));
    expect(signingKeyFor(keys, 'RS256')?.kid).toBe('rsa-new');
    expect(signingKeyFor(keys, 'EdDSA')?.kid).toBe('ed');
    const old = keys.find((key) => key.kid === 'rsa-old')!;
    expect(old.privateKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
    expect(Object.keys(old.publicJwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(old.publicJwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    for (const member of RSA_PRIVATE_MEMBERS) expect(old.publicJwk).not.toHaveProperty(member);
  });

  it.each([
    ['not JSON', 'kid=1', /JSON array/],
    ['an empty set', '[]', /at least one key/],
    ['two keys with one kid', JSON.stringify([ed25519('same'), ed25519('same')]), /its own kid/],
    ['a key without a kid', JSON.stringify([{ ...ed25519('x'), kid: undefined }]), /kid/],
    ['a public key alone', JSON.stringify([{ ...ed25519('pub'), d: undefined }]), /d/],
    ['an x that is not the key’s', JSON.stringify([{ ...ed25519('mixed'), x: ed25519('other').x }]), /"mixed" is not a valid Ed25519 private key/],
    ['another curve', JSON.stringify([{ kid: 'ec', ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) }]), /OKP|Ed25519/],
    ['an RSA key under 2048 bits', JSON.stringify([ed25519('ed'), rsa('weak', 1024)]), /"weak" is a 1024-bit RSA key: RS256 needs 2048 bits or more/],
    ['an RSA key without its CRT members', JSON.stringify([ed25519('ed'), { ...rsa('bare'), p: undefined, q: undefined }]), /p|q/],
    ['an RSA n that is not the key’s', JSON.stringify([ed25519('ed'), { ...rsa('swapped'), n: rsa('other').n }]), /"swapped" is not a valid RSA private key/],
    ['an RSA key alone', JSON.stringify([rsa('alone')]), /OKP|Ed25519/],
  ])('refuses %s, without repeating the key', (_case, value, message) => {
    const result = signingKeysSchema.safeParse(value);
    expect(result.success).toBe(false);
    const text = (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    expect(text).toMatch(message);
    const secret = /"d":"([^"]+)"/.exec(value)?.[1];
    if (secret) expect(text).not.toContain(secret);
  });
});
