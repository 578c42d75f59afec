import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import { databaseVariables, env, grpcServiceVariables, loadConfig, natsVariables, processVariables, redisModeProblems, redisVariables } from '@latchkey/config';

const providerUrl = env.url(['http', 'https']);

/** The variables each provider needs before it is switched on (docs/api.md, "Configuration"). */
export const providerCredentials = {
  google: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_REDIRECT_URI'],
  github: ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET', 'GITHUB_REDIRECT_URI'],
} as const;

/** Provider endpoints, which must be HTTPS in production (docs/api.md, "Configuration"). */
const providerEndpoints = [
  'GOOGLE_ISSUER',
  'GOOGLE_AUTHORIZATION_URL',
  'GOOGLE_TOKEN_URL',
  'GOOGLE_USERINFO_URL',
  'GOOGLE_JWKS_URL',
  'GITHUB_AUTHORIZATION_URL',
  'GITHUB_TOKEN_URL',
  'GITHUB_API_URL',
] as const;

/** Everything the OAuth service reads from its environment. */
export const configSchema = z
  .object({
    ...processVariables,
    ...grpcServiceVariables,
    GRPC_PORT: env.port(50052),
    ...databaseVariables,
    DATABASE_POOL_MAX: env.int(10, 1, 200),
    ...redisVariables,
    ...natsVariables,
    /** identity.v1, which owns the accounts this service finds and creates (packages/units). */
    ...callerVariables('oauth'),

    GOOGLE_CLIENT_ID: z.string().optional(),
    GOOGLE_CLIENT_SECRET: z.string().optional(),
    GOOGLE_REDIRECT_URI: providerUrl.optional(),
    /** Endpoints and keys come from this issuer's discovery document unless overridden below. */
    GOOGLE_ISSUER: providerUrl.default('https://accounts.google.com'),
    GOOGLE_AUTHORIZATION_URL: providerUrl.optional(),
    GOOGLE_TOKEN_URL: providerUrl.optional(),
    GOOGLE_USERINFO_URL: providerUrl.optional(),
    GOOGLE_JWKS_URL: providerUrl.optional(),

    GITHUB_CLIENT_ID: z.string().optional(),
    GITHUB_CLIENT_SECRET: z.string().optional(),
    GITHUB_REDIRECT_URI: providerUrl.optional(),
    GITHUB_AUTHORIZATION_URL: providerUrl.default('https://github.com/login/oauth/authorize'),
    GITHUB_TOKEN_URL: providerUrl.default('https://github.com/login/oauth/access_token'),
    /** The REST API root: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
    GITHUB_API_URL: providerUrl.default('https://api.github.com'),

    OAUTH_PENDING_SIGNUP_TTL_MINUTES: env.int(10, 1, 24 * 60),
    /** docs/api.md, "Sign-in with a provider (OAuth)": state is stored server-side for 10 minutes. */
    OAUTH_STATE_TTL_SECONDS: env.int(600, 30, 3_600),
    /** Every call to a provider gives up after this long: oauth:provider_unavailable. */
    OAUTH_PROVIDER_TIMEOUT_MS: env.int(5_000, 100, 60_000),

    /**
     * Enterprise SSO (docs/sso.md): on with both of these, off with neither.
     * SSO_PUBLIC_URL is the gateway's public origin, of which the service
     * provider's entity id, assertion consumer service and OpenID redirect
     * URI are made; SSO_ENCRYPTION_KEY seals connection secrets at rest.
     */
    SSO_PUBLIC_URL: providerUrl.optional(),
    SSO_ENCRYPTION_KEY: env.encryptionKey().optional(),
    /** Decryption only: after a rotation, the keys that sealed existing connections. */
    SSO_PREVIOUS_ENCRYPTION_KEYS: env.previousEncryptionKeys(),
    /** How long an AuthnRequest or an authorization request through a connection stays answerable. */
    SSO_REQUEST_TTL_SECONDS: env.int(600, 30, 3_600),
    /** Tests and local stacks only: OpenID issuers on loopback or private addresses. */
    SSO_ALLOW_PRIVATE_ISSUERS: env.bool(false),
  })
  .superRefine((config, context) => {
    const production = config.NODE_ENV === 'production';
    for (const names of Object.values(providerCredentials)) {
      const missing = names.filter((name) => config[name] === undefined);
      // In production every provider is required; elsewhere a provider is on
      // with all of its variables or off with none, never half-configured.
      if (missing.length === 0 || (!production && missing.length === names.length)) continue;
      for (const name of missing) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: production ? 'is required when NODE_ENV=production' : `is required: set all of ${names.join(', ')} or none`,
        });
      }
    }
    if ((config.SSO_PUBLIC_URL === undefined) !== (config.SSO_ENCRYPTION_KEY === undefined)) {
      const missing = config.SSO_PUBLIC_URL === undefined ? 'SSO_PUBLIC_URL' : 'SSO_ENCRYPTION_KEY';
      context.addIssue({ code: 'custom', path: [missing], message: 'is required: set both of SSO_PUBLIC_URL and SSO_ENCRYPTION_KEY or neither' });
    }
    if (!production) return;
    if (config.SSO_PUBLIC_URL !== undefined && new URL(config.SSO_PUBLIC_URL).protocol !== 'https:') {
      context.addIssue({ code: 'custom', path: ['SSO_PUBLIC_URL'], message: 'must be an https URL when NODE_ENV=production' });
    }
    if (config.SSO_ALLOW_PRIVATE_ISSUERS) {
      context.addIssue({ code: 'custom', path: ['SSO_ALLOW_PRIVATE_ISSUERS'], message: 'must be false when NODE_ENV=production' });
    }
    for (const name of providerEndpoints) {
      const value = config[name];
      if (value !== undefined && new URL(value).protocol !== 'https:') {
        context.addIssue({ code: 'custom', path: [name], message: 'must be an https URL when NODE_ENV=production' });
      }
    }
  })
  .superRefine(redisModeProblems);

export type OAuthConfig = z.output<typeof configSchema>;

export function loadOAuthConfig(environment: Record<string, string | undefined> = process.env): OAuthConfig {
  return loadConfig(configSchema, environment);
}
