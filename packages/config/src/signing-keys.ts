import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { env } from './variables';

/** An Ed25519 private key as a JWK (RFC 8037) with the key id tokens name it by. */
const ed25519JwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  kid: z.string().min(1).max(128),
  x: z.string().min(1),
  d: z.string().min(1),
});

/** A P-256 private key as a JWK (RFC 7518), for OpenID clients that ask for ES256 ID tokens (docs/oidc.md). */
const p256JwkSchema = z.object({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  kid: z.string().min(1).max(128),
  x: z.string().min(1),
  y: z.string().min(1),
  d: z.string().min(1),
});

const privateJwkSchema = z.discriminatedUnion('kty', [ed25519JwkSchema, p256JwkSchema]);

export type SigningAlgorithm = 'EdDSA' | 'ES256';

/** The public half of a signing key, as GET /.well-known/jwks.json lists it. */
export type PublicJwk =
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly kid: string; readonly x: string; readonly alg: 'EdDSA'; readonly use: 'sig' }
  | { readonly kty: 'EC'; readonly crv: 'P-256'; readonly kid: string; readonly x: string; readonly y: string; readonly alg: 'ES256'; readonly use: 'sig' };

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: KeyObject;
  readonly publicJwk: PublicJwk;
  /** The private JWK as configured, for the OpenID Provider's key store. */
  readonly privateJwk: z.output<typeof privateJwkSchema>;
}

/**
 * AUTH_JWT_SIGNING_KEYS: a JSON array of Ed25519 private JWKs, and
 * optionally P-256 ones for ES256. Per algorithm the first signs; every
 * one is published, so that after a rotation (a new key put first) tokens
 * signed with the old one verify until they expire (docs/operations.md,
 * "Service tokens").
 */
export const signingKeysSchema = env
  .json('a JSON array of Ed25519 private JWKs')
  .pipe(z.array(privateJwkSchema).min(1, 'must hold at least one key'))
  .refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'every key needs its own kid')
  .refine((keys) => keys.some((key) => key.kty === 'OKP'), 'must hold at least one Ed25519 (OKP) key: service tokens are EdDSA')
  .transform((keys, context) => {
    const parsed: SigningKey[] = [];
    for (const jwk of keys) {
      const curve = jwk.kty === 'OKP' ? 'Ed25519' : 'P-256';
      try {
        const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
        // The public half the JWK claims must be the one its d gives, or tokens would not verify with the published key.
        const derived = createPublicKey(privateKey).export({ format: 'jwk' });
        if (derived.x !== jwk.x || (jwk.kty === 'EC' && derived.y !== jwk.y)) throw new Error('public half does not match d');
        const publicJwk: PublicJwk =
          jwk.kty === 'OKP'
            ? { kty: 'OKP', crv: 'Ed25519', kid: jwk.kid, x: jwk.x, alg: 'EdDSA', use: 'sig' }
            : { kty: 'EC', crv: 'P-256', kid: jwk.kid, x: jwk.x, y: jwk.y, alg: 'ES256', use: 'sig' };
        parsed.push({ kid: jwk.kid, alg: publicJwk.alg, privateKey, publicJwk, privateJwk: jwk });
      } catch {
        context.addIssue({ code: 'custom', message: `key ${JSON.stringify(jwk.kid)} is not a valid ${curve} private key` });
        return z.NEVER;
      }
    }
    return parsed;
  });

/** The key that signs with an algorithm: the first of that algorithm. */
export function signingKeyFor(keys: readonly SigningKey[], alg: SigningAlgorithm): SigningKey | undefined {
  return keys.find((key) => key.alg === alg);
}
