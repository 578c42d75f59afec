import type { RedisClient } from '@latchkey/db';
import { Counter } from 'prom-client';
import { connectCallees, probeCallees } from '@latchkey/callees';
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
 * client: one long-lived channel per service the catalogue says the
 * gateway calls (packages/callees), a health probe of each unit for
 * `/dependencies`, the stores and limits. Nothing connects until it is
 * first used, so the OpenAPI document can be built from the same wiring
 * without a running system. `drain` makes readiness fail while the gateway
 * stops; `close` releases the channels.
 */
export function createGatewayDeps(
  config: GatewayConfig,
  logger: Logger,
  redis: RedisClient,
): { deps: GatewayDeps; drain: () => void; close: () => void } {
  const callees = connectCallees('gateway', config);
  const { identity, oidc, orgs } = callees.clients;
  const probes = probeCallees('gateway', config);

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
    ...callees.clients,
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
      callees.close();
      for (const { probe } of probes) probe.close();
    },
  };
}
