import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { env, signingAlgorithms } from '@latchkey/config';

/** Grant types a client may list: the code flow, refresh tokens and the device flow, nothing implicit. */
export const clientGrantTypes = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] as const;

const jwkSchema = z.looseObject({ kty: z.string().min(1) });

/** What a client id may be: 1-128 URL-safe characters. Anything else names no client, and is refused before a look-up. */
export const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * A client entry of OIDC_CLIENTS (and of admin.v1), with OpenID Connect
 * Dynamic Client Registration field names and Latchkey's `first_party`
 * (no consent screen) and `require_mfa` (docs/oidc.md, "Clients").
 */
export const clientEntrySchema = z
  .object({
    client_id: z.string().regex(CLIENT_ID, 'must be 1-128 URL-safe characters'),
    client_secret: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
    client_name: z.string().min(1).max(200).optional(),
    redirect_uris: z.array(z.url()).default([]),
    post_logout_redirect_uris: z.array(z.url()).default([]),
    grant_types: z.array(z.enum(clientGrantTypes)).min(1).default(['authorization_code', 'refresh_token']),
    response_types: z.array(z.literal('code')).optional(),
    token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']).default('client_secret_basic'),
    jwks: z.object({ keys: z.array(jwkSchema).min(1) }).optional(),
    backchannel_logout_uri: z.url().optional(),
    backchannel_logout_session_required: z.boolean().default(false),
    // RS256 when the client names none, as OpenID Connect Dynamic Client Registration 1.0 section 2 says.
    id_token_signed_response_alg: z.enum(signingAlgorithms).default('RS256'),
    scope: z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'must be space-separated scopes').optional(),
    first_party: z.boolean().default(false),
    require_mfa: z.boolean().default(false),
  })
  .superRefine((entry, context) => {
    if (!usesClientSecret(entry) && entry.client_secret !== undefined) {
      context.addIssue({ code: 'custom', path: ['client_secret'], message: `must be absent with ${entry.token_endpoint_auth_method}` });
    }
    if (entry.token_endpoint_auth_method === 'private_key_jwt' && entry.jwks === undefined) {
      context.addIssue({ code: 'custom', path: ['jwks'], message: 'is required with private_key_jwt' });
    }
    const usesCode = entry.grant_types.includes('authorization_code');
    if (usesCode && entry.redirect_uris.length === 0) {
      context.addIssue({ code: 'custom', path: ['redirect_uris'], message: 'needs at least one URI with authorization_code' });
    }
  });

export type ClientEntry = z.output<typeof clientEntrySchema>;

/** Whether a client authenticates with a shared secret. */
export function usesClientSecret(entry: Pick<ClientEntry, 'token_endpoint_auth_method'>): boolean {
  return entry.token_endpoint_auth_method === 'client_secret_basic' || entry.token_endpoint_auth_method === 'client_secret_post';
}

/**
 * OIDC_CLIENT_SECRETS: a JSON object from client id to secret, kept in a
 * Secret while the entries of OIDC_CLIENTS live in Helm values (GitOps).
 */
export const clientSecretsSchema = env
  .json('a JSON object from client id to secret', '{}')
  .pipe(z.record(z.string(), z.string().min(16, 'every secret must be at least 16 characters').max(512)));

/**
 * The entries with their secrets: an entry's own `client_secret`, else its
 * OIDC_CLIENT_SECRETS one. Answers the problems (a secret-based client
 * without a secret, a secret for no such client) instead of the entries.
 */
export function withClientSecrets(entries: readonly ClientEntry[], secrets: Readonly<Record<string, string>>): ClientEntry[] | string[] {
  const problems: string[] = [];
  const merged = entries.map((entry) => {
    const secret = entry.client_secret ?? secrets[entry.client_id];
    if (usesClientSecret(entry) && secret === undefined) problems.push(`client ${entry.client_id} uses ${entry.token_endpoint_auth_method} but has no secret`);
    return usesClientSecret(entry) && secret !== undefined ? { ...entry, client_secret: secret } : entry;
  });
  for (const clientId of Object.keys(secrets)) {
    const entry = entries.find((candidate) => candidate.client_id === clientId);
    if (!entry || !usesClientSecret(entry)) problems.push(`OIDC_CLIENT_SECRETS names ${clientId}, which is no client with a secret`);
  }
  return problems.length > 0 ? problems : merged;
}

/** OIDC_CLIENTS: a JSON array of client entries with distinct ids. */
export const clientEntriesSchema = env
  .json('a JSON array of client entries', '[]')
  .pipe(z.array(clientEntrySchema))
  .refine((entries) => new Set(entries.map((entry) => entry.client_id)).size === entries.length, 'every client needs its own client_id');

/**
 * Why `clientId` cannot be a client's id, or undefined when it can: the
 * service tokens' audience (AUTH_JWT_AUDIENCE) is reserved, since an ID
 * token's `aud` is its client's id and the same keys sign both, so such a
 * client's ID tokens would pass a service token verifier's audience check.
 */
export function reservedClientIdProblem(clientId: string, serviceTokenAudience: string): string | undefined {
  if (clientId !== serviceTokenAudience) return undefined;
  return `cannot be ${JSON.stringify(clientId)}: it is AUTH_JWT_AUDIENCE, the audience of service tokens`;
}

/** A new client secret: 256 random bits, base64url. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A client secret as the provider keeps it: its SHA-256, never the secret
 * (admin.v1 stores the same). Secrets are long random strings, for which a
 * fast hash is as strong as a slow one.
 */
export function hashClientSecret(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('base64url')}`;
}

/** Compares a presented secret with a kept hash in constant time. */
export function clientSecretMatches(kept: string, presented: string): boolean {
  const expected = Buffer.from(kept, 'utf8');
  const actual = Buffer.from(hashClientSecret(presented), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The provider's metadata of an entry: its secret hashed, `response_types` from its grant types. */
export function providerMetadataOf(entry: ClientEntry, secretHash: string | undefined): Record<string, unknown> {
  const { client_secret: _secret, ...rest } = entry;
  const usesCode = entry.grant_types.includes('authorization_code');
  return {
    ...rest,
    response_types: usesCode ? ['code'] : [],
    // Every ID token says when the user signed in (docs/oidc.md, "ID tokens").
    require_auth_time: true,
    ...(secretHash === undefined ? {} : { client_secret: secretHash }),
  };
}
