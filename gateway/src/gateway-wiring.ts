import type { RedisClient } from '@latchkey/db';
import { Counter } from 'prom-client';
import { identityV1, oauthV1, oidcV1, orgsV1, passkeysV1, postsV1, totpV1 } from '@latchkey/contracts';
import { createServiceClient, HealthProbe, tlsFilesOf } from '@latchkey/grpc-kit';
import { createMetricsRegistry, type Logger } from '@latchkey/telemetry';
import type { GatewayConfig } from './config';
import type { GatewayDeps } from './gateway-deps';
import { allowedOrigins } from './http/origin-policy';
import { PostListCache } from './posts/post-list-cache';
import { CredentialLimits } from './limits/credential-limits';
import { LoginFailures } from './limits/login-failures';
import { RateLimiter } from './limits/rate-limiter';
import { UsageLimits } from './limits/usage-limits';
import { OrganizationLimits } from './limits/organization-limits';
import { AppError } from '@latchkey/errors';
import { AccountStates } from './sessions/account-states';
import { createOpenIdProvider } from './oidc/openid-provider';
import { SessionStore } from './sessions/session-store';
import { signOut } from './sessions/sign-out';
import { ServiceTokens } from './tokens/service-tokens';
import { DependencyStatus, redisCheck, unitCheck } from './dependency-status';

const HOUR_MS = 60 * 60 * 1000;
/** Accounts whose state one gateway remembers: about 100 bytes each. */
const ACCOUNT_STATE_MAX_ENTRIES = 100_000;

/**
 * Builds everything the routes use from the configuration and a Redis
 * client: one long-lived channel per service, the stores and limits. Nothing
 * connects until it is first used, so the OpenAPI document can be built from
 * the same wiring without a running system. `drain` makes readiness fail
 * while the gateway stops; `close` releases the channels.
 */
export function createGatewayDeps(
  config: GatewayConfig,
  logger: Logger,
  redis: RedisClient,
): { deps: GatewayDeps; drain: () => void; close: () => void } {
  const tls = tlsFilesOf(config);
  const clientOptions = { tls };
  const identity = createServiceClient(identityV1.IdentityServiceService, config.IDENTITY_GRPC_ADDRESS, clientOptions);
  const posts = createServiceClient(postsV1.PostsServiceService, config.POSTS_GRPC_ADDRESS, clientOptions);
  const totp = createServiceClient(totpV1.TotpServiceService, config.TOTP_GRPC_ADDRESS, clientOptions);
  const oauth = createServiceClient(oauthV1.OAuthServiceService, config.OAUTH_GRPC_ADDRESS, clientOptions);
  const passkeys = createServiceClient(passkeysV1.PasskeysServiceService, config.PASSKEYS_GRPC_ADDRESS, clientOptions);
  // oidc.v1 is served by identity, beside identity.v1.
  const oidc = createServiceClient(oidcV1.OidcServiceService, config.IDENTITY_GRPC_ADDRESS, clientOptions);
  // orgs.v1 too: organisations live with the accounts (docs/decisions/0003-organisations-in-identity.md).
  const orgs = createServiceClient(orgsV1.OrganizationsServiceService, config.IDENTITY_GRPC_ADDRESS, clientOptions);
  const probes = (
    [
      ['identity', config.IDENTITY_GRPC_ADDRESS, 'identity.v1.IdentityService'],
      ['posts', config.POSTS_GRPC_ADDRESS, 'posts.v1.PostsService'],
      ['totp', config.TOTP_GRPC_ADDRESS, 'totp.v1.TotpService'],
      ['oauth', config.OAUTH_GRPC_ADDRESS, 'oauth.v1.OAuthService'],
      ['passkeys', config.PASSKEYS_GRPC_ADDRESS, 'passkeys.v1.PasskeysService'],
    ] as const
  ).map(([unit, address, service]) => ({ unit, probe: new HealthProbe(address, tls), service }));

  const registry = createMetricsRegistry('gateway');
  let draining = false;
  const postListCacheRequests = new Counter({
    name: 'post_list_cache_requests_total',
    help: 'Requests for the newest post page, by outcome: hit (served from memory), miss (fetched from posts), bypassed (Redis unavailable).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const unverifiedSessionChecks = new Counter({
    name: 'session_checks_unverified_total',
    help: 'Sessions admitted on their own record because identity was unavailable and the account had not been seen: the credential-epoch check could not run.',
    registers: [registry],
  });
  const limiter = new RateLimiter(redis, config.REDIS_KEY_PREFIX);
  const accountStates = new AccountStates(
    async (userId, sessionId, context) => {
      try {
        const { user, endedSessions } = await identity.getUser({ userId, sessionCheck: { sessionId: sessionId ?? '' } }, context);
        return (
          user && {
            sessionEpoch: user.sessionEpoch,
            disabled: user.disabledAt !== undefined,
            endedSessions: endedSessions && { ids: new Set(endedSessions.sessionIds), complete: !endedSessions.truncated },
          }
        );
      } catch (error) {
        // A deleted account: its sessions are refused until the cleanup job ends them.
        if (error instanceof AppError && error.code === 'auth:unauthorized') return undefined;
        throw error;
      }
    },
    {
      maxAgeMs: config.AUTH_ACCOUNT_STATE_MAX_AGE_MS,
      maxEntries: ACCOUNT_STATE_MAX_ENTRIES,
      onUnknown: () => unverifiedSessionChecks.inc(),
    },
  );
  const sessions = new SessionStore(
    redis,
    config.REDIS_KEY_PREFIX,
    {
      slidingTtlMs: config.AUTH_SESSION_SLIDING_TTL_HOURS * HOUR_MS,
      maxLifetimeMs: config.AUTH_SESSION_MAX_LIFETIME_HOURS * HOUR_MS,
      refreshThresholdPercent: config.AUTH_SESSION_REFRESH_THRESHOLD,
      maxPerUser: config.AUTH_SESSION_MAX_PER_USER,
    },
    accountStates,
    async (ending, context) => {
      await identity.recordSessionsEnded(ending, context);
    },
  );
  const deps: GatewayDeps = {
    config,
    logger,
    identity,
    posts,
    totp,
    oauth,
    passkeys,
    oidc,
    orgs,
    sessions,
    tokens: new ServiceTokens({
      keys: config.AUTH_JWT_SIGNING_KEYS,
      issuer: config.AUTH_JWT_ISSUER ?? config.PUBLIC_APP_URL,
      audience: config.AUTH_JWT_AUDIENCE,
      ttlSeconds: config.AUTH_JWT_TTL_SECONDS,
    }),
    usage: new UsageLimits(limiter, config),
    organizationLimits: new OrganizationLimits(limiter, config),
    limits: new CredentialLimits(
      limiter,
      new LoginFailures(redis, config.REDIS_KEY_PREFIX, {
        perClient: config.RATE_LIMIT_LOGIN_FAILURES,
        perAccount: config.RATE_LIMIT_ACCOUNT_FAILURES,
        windowSeconds: config.RATE_LIMIT_LOGIN_WINDOW_SECONDS,
      }),
      config,
    ),
    newestPosts: new PostListCache(redis, config.REDIS_KEY_PREFIX, {
      onOutcome: (outcome) => postListCacheRequests.inc({ outcome }),
    }),
    registry,
    cookie: { name: config.SESSION_COOKIE_NAME, secure: config.COOKIE_SECURE, maxAgeSeconds: config.AUTH_SESSION_MAX_LIFETIME_HOURS * 3600 },
    allowedOrigins: allowedOrigins(config.PUBLIC_APP_URL, config.ALLOWED_ORIGINS),
    openIdProvider: config.OIDC_ENABLED
      ? () =>
          createOpenIdProvider({
            config,
            logger,
            redis,
            identity,
            oidc,
            orgs,
            sessions,
            signingKeys: config.AUTH_JWT_SIGNING_KEYS,
            signOut: (session, context) => signOut(sessions, session, context),
          })
      : undefined,
    ready: () => !draining,
    dependencies: new DependencyStatus(
      [redisCheck(redis), ...probes.map(({ unit, probe, service }) => unitCheck(unit, probe, service))],
      registry,
    ),
  };

  return {
    deps,
    drain() {
      draining = true;
    },
    close() {
      identity.close();
      posts.close();
      totp.close();
      oauth.close();
      passkeys.close();
      oidc.close();
      orgs.close();
      for (const { probe } of probes) probe.close();
    },
  };
}
