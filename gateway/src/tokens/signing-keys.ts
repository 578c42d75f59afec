import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** An Ed25519 private key as a JWK (RFC 8037) with the key id tokens name it by. */
const privateJwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  kid: z.string().min(1).max(128),
  x: z.string().min(1),
  d: z.string().min(1),
});

/** The public half of a signing key, as GET /.well-known/jwks.json lists it. */
export interface PublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly kid: string;
  readonly x: string;
  readonly alg: 'EdDSA';
  readonly use: 'sig';
}

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicJwk: PublicJwk;
}

/**
 * AUTH_JWT_SIGNING_KEYS: a JSON array of Ed25519 private JWKs. The first
 * signs; every one is published, so that after a rotation (a new key put
 * first) tokens signed with the old one verify until they expire
 * (docs/operations.md, "Service tokens").
 */
export const signingKeysSchema = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a JSON array of Ed25519 private JWKs' });
      return z.NEVER;
    }
  })
  .pipe(z.array(privateJwkSchema).min(1, 'must hold at least one key'))
  .refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'every key needs its own kid')
  .transform((keys, context) => {
    const parsed: SigningKey[] = [];
    for (const jwk of keys) {
      try {
        const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
        // The x the JWK claims must be the one its d gives, or tokens would not verify with the published key.
        const x = createPublicKey(privateKey).export({ format: 'jwk' }).x;
        if (x !== jwk.x) throw new Error('x does not match d');
        parsed.push({ kid: jwk.kid, privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', kid: jwk.kid, x: jwk.x, alg: 'EdDSA', use: 'sig' } });
      } catch {
        context.addIssue({ code: 'custom', message: `key ${JSON.stringify(jwk.kid)} is not a valid Ed25519 private key` });
        return z.NEVER;
      }
    }
    return parsed;
  });
