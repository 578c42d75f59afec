import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
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

/**
 * An RSA private key as a JWK (RFC 7518 6.3), with the CRT members the
 * OpenID Provider's key store insists on: RS256, which OpenID Connect Core
 * 15.1 requires of every provider, is what relying parties that know
 * nothing newer verify (docs/oidc.md, "Keys").
 */
const rsaJwkSchema = z.object({
  kty: z.literal('RSA'),
  kid: z.string().min(1).max(128),
  n: z.string().min(1),
  e: z.string().min(1),
  d: z.string().min(1),
  p: z.string().min(1),
  q: z.string().min(1),
  dp: z.string().min(1),
  dq: z.string().min(1),
  qi: z.string().min(1),
});

const privateJwkSchema = z.discriminatedUnion('kty', [ed25519JwkSchema, p256JwkSchema, rsaJwkSchema]);

/** The JWS algorithms the keys sign with, one per key type. */
export const signingAlgorithms = ['RS256', 'ES256', 'EdDSA'] as const;

export type SigningAlgorithm = (typeof signingAlgorithms)[number];

/** NIST SP 800-131A: RSA signatures need a modulus of 2048 bits or more. */
const RSA_MIN_MODULUS_BITS = 2048;

/** The public half of a signing key, as GET /.well-known/jwks.json lists it. */
export type PublicJwk =
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly kid: string; readonly x: string; readonly alg: 'EdDSA'; readonly use: 'sig' }
  | { readonly kty: 'EC'; readonly crv: 'P-256'; readonly kid: string; readonly x: string; readonly y: string; readonly alg: 'ES256'; readonly use: 'sig' }
  | { readonly kty: 'RSA'; readonly kid: string; readonly n: string; readonly e: string; readonly alg: 'RS256'; readonly use: 'sig' };

type PrivateJwk = z.output<typeof privateJwkSchema>;

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: KeyObject;
  readonly publicJwk: PublicJwk;
  /** The private JWK as configured, for the OpenID Provider's key store. */
  readonly privateJwk: PrivateJwk;
}

const keyTypeNames = { OKP: 'Ed25519', EC: 'P-256', RSA: 'RSA' } as const;
const KEY_CHECK_MESSAGE = Buffer.from('latchkey signing key check');

/** The public half of a private JWK, only the members a verifier needs: never `d` nor, for RSA, `p`, `q`, `dp`, `dq`, `qi`. */
function publicHalfOf(jwk: PrivateJwk): PublicJwk {
  switch (jwk.kty) {
    case 'OKP':
      return { kty: 'OKP', crv: 'Ed25519', kid: jwk.kid, x: jwk.x, alg: 'EdDSA', use: 'sig' };
    case 'EC':
      return { kty: 'EC', crv: 'P-256', kid: jwk.kid, x: jwk.x, y: jwk.y, alg: 'ES256', use: 'sig' };
    case 'RSA':
      return { kty: 'RSA', kid: jwk.kid, n: jwk.n, e: jwk.e, alg: 'RS256', use: 'sig' };
  }
}

/**
 * Whether a signature made with the private key verifies with the public
 * half the JWK claims: tokens must verify with the published key, and an
 * RSA JWK whose `n` is not the product of its `p` and `q` imports without
 * complaint but signs for no one.
 */
function publicHalfMatches(privateKey: KeyObject, publicJwk: PublicJwk): boolean {
  const { alg: _alg, use: _use, kid: _kid, ...members } = publicJwk;
  const publicKey = createPublicKey({ key: members, format: 'jwk' });
  const digest = publicJwk.kty === 'OKP' ? null : 'sha256';
  return verify(digest, KEY_CHECK_MESSAGE, publicKey, sign(digest, KEY_CHECK_MESSAGE, privateKey));
}

/**
 * AUTH_JWT_SIGNING_KEYS: a JSON array of private JWKs: Ed25519 (service
 * tokens, EdDSA ID tokens), RSA of 2048 bits or more (RS256, the ID tokens
 * of every client that names no algorithm) and optionally P-256 (ES256).
 * Per algorithm the first signs; every one is published, so that after a
 * rotation (a new key put first) tokens signed with the old one verify
 * until they expire (docs/operations.md, "Service tokens").
 */
export const signingKeysSchema = env
  .json('a JSON array of private JWKs (Ed25519, RSA, P-256)')
  .pipe(z.array(privateJwkSchema).min(1, 'must hold at least one key'))
  .refine((keys) => new Set(keys.map((key) => key.kid)).size === keys.length, 'every key needs its own kid')
  .refine((keys) => keys.some((key) => key.kty === 'OKP'), 'must hold at least one Ed25519 (OKP) key: service tokens are EdDSA')
  .transform((keys, context) => {
    const parsed: SigningKey[] = [];
    for (const jwk of keys) {
      const publicJwk = publicHalfOf(jwk);
      let privateKey: KeyObject;
      try {
        privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
        if (!publicHalfMatches(privateKey, publicJwk)) throw new Error('public half does not match the private key');
      } catch {
        context.addIssue({ code: 'custom', message: `key ${JSON.stringify(jwk.kid)} is not a valid ${keyTypeNames[jwk.kty]} private key` });
        return z.NEVER;
      }
      const modulusBits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
      if (jwk.kty === 'RSA' && modulusBits < RSA_MIN_MODULUS_BITS) {
        context.addIssue({ code: 'custom', message: `key ${JSON.stringify(jwk.kid)} is a ${modulusBits}-bit RSA key: RS256 needs ${RSA_MIN_MODULUS_BITS} bits or more` });
        return z.NEVER;
      }
      parsed.push({ kid: jwk.kid, alg: publicJwk.alg, privateKey, publicJwk, privateJwk: jwk });
    }
    return parsed;
  });

/** The key that signs with an algorithm: the first of that algorithm. */
export function signingKeyFor(keys: readonly SigningKey[], alg: SigningAlgorithm): SigningKey | undefined {
  return keys.find((key) => key.alg === alg);
}

const keyKindOf = { RS256: 'RSA', ES256: 'P-256', EdDSA: 'Ed25519' } as const satisfies Record<SigningAlgorithm, string>;

/**
 * What the OpenID Provider's keys lack, one message per problem: an RSA
 * key, since RS256 signs for every client that names no algorithm (OpenID
 * Connect Core 15.1 requires it of every provider), and a key for the
 * algorithm each client asks for.
 */
export function openIdProviderKeyProblems(
  keys: readonly SigningKey[],
  clients: readonly { readonly client_id: string; readonly id_token_signed_response_alg: SigningAlgorithm }[],
): { readonly variable: 'AUTH_JWT_SIGNING_KEYS' | 'OIDC_CLIENTS'; readonly message: string }[] {
  const problems: { variable: 'AUTH_JWT_SIGNING_KEYS' | 'OIDC_CLIENTS'; message: string }[] = [];
  if (!signingKeyFor(keys, 'RS256')) {
    problems.push({
      variable: 'AUTH_JWT_SIGNING_KEYS',
      message: `needs an RSA key (${RSA_MIN_MODULUS_BITS} bits or more) when OIDC_ENABLED is true: RS256 signs the ID tokens of every client that names no algorithm (docs/operations.md, "The OpenID Provider")`,
    });
  }
  for (const client of clients) {
    const alg = client.id_token_signed_response_alg;
    if (signingKeyFor(keys, alg)) continue;
    problems.push({ variable: 'OIDC_CLIENTS', message: `client ${client.client_id} asks for ${alg} ID tokens, but AUTH_JWT_SIGNING_KEYS holds no ${keyKindOf[alg]} key` });
  }
  return problems;
}
