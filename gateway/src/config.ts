import { z } from 'zod';
import { callerVariables } from '@latchkey/callees';
import {
  env,
  grpcServiceVariables,
  loadConfig,
  mutualTlsVariables,
  platformApiVariables,
  platformCaGiven,
  platformCaProblem,
  openIdProviderKeyProblems,
  processVariables,
  redisModeProblems,
  redisVariables,
  serviceTokenVariables,
  signingKeysSchema,
} from '@latchkey/config';
import { clientEntriesSchema, clientSecretsSchema, reservedClientIdProblem, withClientSecrets, type ClientEntry } from '@latchkey/oidc-clients';

/**
 * RFC 6265bis cookie prefixes: a browser keeps a `__Host-` cookie only if it
 * is Secure, has Path=/ and no Domain (what the gateway sets), and a
 * `__Secure-` one only if Secure.
 */
const COOKIE_NAME = /^(__Host-|__Secure-)?[A-Za-z0-9_-]{1,64}$/;

/** Everything the gateway reads from its environment (README.md, "Configuration"). */
export const configSchema = z.object({
  ...processVariables,
  GATEWAY_HOST: z.string().default('0.0.0.0'),
  GATEWAY_PORT: env.port(8080),
  /** The address of the gateway's other listeners (sessions.v1, metrics); `pnpm stack` sets 127.0.0.1. */
  LISTEN_HOST: grpcServiceVariables.LISTEN_HOST,
  /** `/metrics`, `/healthz` and `/readyz`, apart from the public port, as on every unit. */
  METRICS_PORT: grpcServiceVariables.METRICS_PORT,
  /** sessions.v1, for the services beside Latchkey (docs/integration.md). */
  GRPC_PORT: env.port(50055),
  GRPC_MAX_CONNECTION_AGE_MS: grpcServiceVariables.GRPC_MAX_CONNECTION_AGE_MS,
  /**
   * With mutual TLS, the subject alternative names (DNS or URI) of the
   * platform clients' certificates that may call sessions.v1; none by
   * default. Over plaintext there is no caller to check.
   */
  SESSIONS_GRPC_ALLOWED_CALLERS: env.csv(),
  ...platformApiVariables,
  ...redisVariables,
  /** The address of every unit the gateway calls, and GRPC_DEADLINE_MS, the budget of one request (packages/units). */
  ...callerVariables('gateway'),
  ...mutualTlsVariables,
  PUBLIC_APP_URL: env.url(['http', 'https']),
  ALLOWED_ORIGINS: env.csv(),
  COOKIE_SECURE: env.bool(true),
  SESSION_COOKIE_NAME: z.string().regex(COOKIE_NAME, 'must be a cookie name, optionally with __Host- or __Secure-').default('session_id'),
  TRUSTED_PROXIES: env.csv(),
  AUTH_SESSION_MAX_LIFETIME_HOURS: env.int(720, 1),
  AUTH_SESSION_SLIDING_TTL_HOURS: env.int(168, 1),
  AUTH_SESSION_REFRESH_THRESHOLD: env.int(50, 0, 100),
  AUTH_SESSION_MAX_PER_USER: env.int(100, 1, 10_000),
  /**
   * How long a gateway uses an account's credential epoch and disabled flag
   * before asking identity again: a session revoked in PostgreSQL but still
   * in Redis is refused within this (docs/architecture.md, "Sessions").
   */
  AUTH_ACCOUNT_STATE_MAX_AGE_MS: env.int(2_000, 0, 5_000),
  /** How recent a proof of identity privileged changes need (docs/api.md, "Re-authentication"). */
  AUTH_REAUTH_MAX_AGE_SECONDS: env.int(600, 1, 86_400),
  RATE_LIMIT_LOGIN_FAILURES: env.int(10, 1),
  RATE_LIMIT_ACCOUNT_FAILURES: env.int(100, 1),
  RATE_LIMIT_LOGIN_WINDOW_SECONDS: env.int(900, 1),
  /** IPv6 clients are counted by this many leading bits of their address. */
  RATE_LIMIT_IPV6_PREFIX: env.int(64, 1, 128),
  RATE_LIMIT_IP_MAX: env.int(300, 1),
  RATE_LIMIT_IP_WINDOW_SECONDS: env.int(300, 1),
  RATE_LIMIT_SEARCH_MAX: env.int(120, 1),
  RATE_LIMIT_SEARCH_WINDOW_SECONDS: env.int(60, 1),
  RATE_LIMIT_POST_WRITES: env.int(60, 1),
  RATE_LIMIT_POST_WRITES_WINDOW_SECONDS: env.int(60, 1),
  /**
   * Requests per client address per window to the OpenID Provider
   * (docs/oidc.md, "Limits"): the authorization endpoints, where an
   * unauthenticated browser makes the provider keep an interaction, and the
   * token, introspection and revocation endpoints, which relying parties'
   * servers call (one address may carry many users: generous by default).
   */
  RATE_LIMIT_OIDC_AUTHORIZE_MAX: env.int(600, 1),
  RATE_LIMIT_OIDC_TOKEN_MAX: env.int(6_000, 1),
  RATE_LIMIT_OIDC_WINDOW_SECONDS: env.int(60, 1),
  /** Organisations an account may create per window. */
  RATE_LIMIT_ORG_CREATES: env.int(10, 1),
  RATE_LIMIT_ORG_CREATES_WINDOW_SECONDS: env.int(3_600, 1),
  /** Invitations an organisation may send per window (each is a mail to an address a member typed). */
  RATE_LIMIT_INVITATIONS: env.int(100, 1),
  RATE_LIMIT_INVITATIONS_WINDOW_SECONDS: env.int(3_600, 1),
  /** Domain verifications an account may ask for per window (each is a DNS look-up by identity). */
  RATE_LIMIT_DOMAIN_VERIFICATIONS: env.int(60, 1),
  RATE_LIMIT_DOMAIN_VERIFICATIONS_WINDOW_SECONDS: env.int(3_600, 1),
  // SCIM requests per organisation token and window (docs/scim.md).
  RATE_LIMIT_SCIM_REQUESTS: env.int(600, 1),
  RATE_LIMIT_SCIM_WINDOW_SECONDS: env.int(60, 1),
  RATE_LIMIT_MAIL_MAX: env.int(5, 1),
  RATE_LIMIT_MAIL_WINDOW_SECONDS: env.int(3_600, 1),
  /** Private JWKs: Ed25519 for service tokens; RSA (required with OIDC_ENABLED) and P-256 for ID tokens too (docs/oidc.md, "Keys"). */
  AUTH_JWT_SIGNING_KEYS: signingKeysSchema,
  AUTH_JWT_TTL_SECONDS: env.int(300, 30, 3_600),
  /** The `aud` of service tokens, which verifiers check; no OpenID client may have it as its id. */
  ...serviceTokenVariables,
  /** The `iss` of service tokens; default PUBLIC_APP_URL. */
  AUTH_JWT_ISSUER: z.string().min(1).optional(),
  /**
   * Serve the account web app at `/` (docs/web-app.md). Off for an
   * installation whose PUBLIC_APP_URL is a client of its own.
   */
  WEB_APP_ENABLED: env.bool(true),
  /** Latchkey as an OpenID Provider (docs/oidc.md): off unless true. */
  OIDC_ENABLED: env.bool(false),
  /** The provider's issuer, an origin without a path; default PUBLIC_APP_URL's origin. */
  OIDC_ISSUER: env
    .url(['http', 'https'])
    .refine((value) => new URL(value).pathname === '/' && !value.endsWith('/'), 'must be an origin without a path or trailing slash')
    .optional(),
  /** Clients from configuration (Helm values, GitOps): a JSON array of client entries (docs/oidc.md, "Clients"). */
  OIDC_CLIENTS: clientEntriesSchema,
  /** Their secrets, from a Secret: a JSON object from client id to secret. */
  OIDC_CLIENT_SECRETS: clientSecretsSchema,
  /** The absolute lifetime of a refresh token chain, in days; rotation does not extend it. */
  OIDC_REFRESH_TOKEN_TTL_DAYS: env.int(30, 1, 365),
  /** Lifetime of access tokens and ID tokens, in seconds. */
  OIDC_ACCESS_TOKEN_TTL_SECONDS: env.int(3_600, 60, 86_400),
  /** Sizes the body limit of post routes; the posts service enforces the limit itself. */
  POSTS_MAX_CONTENT_BYTES: env.int(1_048_576, 1, 3 * 1_048_576),
})
  .refine((config) => config.COOKIE_SECURE || !/^__(Host|Secure)-/.test(config.SESSION_COOKIE_NAME), {
    message: 'a __Host- or __Secure- cookie name needs COOKIE_SECURE=true: browsers drop such cookies without Secure',
    path: ['SESSION_COOKIE_NAME'],
  })
  .refine(platformCaGiven, platformCaProblem)
  .superRefine(redisModeProblems)
  .superRefine((config, context) => {
    const clients = withClientSecrets(config.OIDC_CLIENTS, config.OIDC_CLIENT_SECRETS);
    if (isProblemList(clients)) for (const problem of clients) context.addIssue({ code: 'custom', path: ['OIDC_CLIENTS'], message: problem });
  })
  .superRefine((config, context) => {
    for (const entry of config.OIDC_CLIENTS) {
      const problem = reservedClientIdProblem(entry.client_id, config.AUTH_JWT_AUDIENCE);
      if (problem) context.addIssue({ code: 'custom', path: ['OIDC_CLIENTS'], message: `client_id ${problem}` });
    }
    if (!config.OIDC_ENABLED) return;
    for (const { variable, message } of openIdProviderKeyProblems(config.AUTH_JWT_SIGNING_KEYS, config.OIDC_CLIENTS)) {
      context.addIssue({ code: 'custom', path: [variable], message });
    }
  });

function isProblemList(clients: ClientEntry[] | string[]): clients is string[] {
  return clients.some((client) => typeof client === 'string');
}

/** OIDC_CLIENTS with their OIDC_CLIENT_SECRETS; the configuration check already refused a client without its secret. */
export function configuredClients(config: Pick<GatewayConfig, 'OIDC_CLIENTS' | 'OIDC_CLIENT_SECRETS'>): ClientEntry[] {
  const clients = withClientSecrets(config.OIDC_CLIENTS, config.OIDC_CLIENT_SECRETS);
  if (isProblemList(clients)) throw new Error(clients.join('; '));
  return clients;
}

export type GatewayConfig = z.output<typeof configSchema>;

export function loadGatewayConfig(environment: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(configSchema, environment);
}
