import { Counter } from 'prom-client';
import { identityV1, oauthV1, passkeysV1, postsV1, sessionsV1, totpV1 } from '@latchkey/contracts';
import { createRedisClient, settledConnection } from '@latchkey/db';
import { createServiceClient, HealthProbe, ServiceServer, tlsFilesOf } from '@latchkey/grpc-kit';
import type { Running } from '@latchkey/runtime';
import { createMetricsRegistry, startOperationsServer, type Logger } from '@latchkey/telemetry';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import type { GatewayDeps } from './gateway-deps';
import { allowedOrigins } from './http/origin-policy';
import { PostListCache } from './posts/post-list-cache';
import { CredentialLimits } from './limits/credential-limits';
import { LoginFailures } from './limits/login-failures';
import { RateLimiter } from './limits/rate-limiter';
import { UsageLimits } from './limits/usage-limits';
import { SessionStore } from './sessions/session-store';
import { sessionsHandlers } from './sessions/sessions-service';
import { ServiceTokens } from './tokens/service-tokens';

const HOUR_MS = 60 * 60 * 1000;

/** Connects Redis and the service channels once, builds the app and listens. */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<Running> {
  // Fail fast while Redis is away or hung, so that requests answer 503 instead of waiting.
  const redis = createRedisClient(config.REDIS_URL, { connectionName: 'latchkey-gateway', logger, failFast: true });
  await settledConnection(redis, 3_000);

  const tls = tlsFilesOf(config);
  // One long-lived channel per service, shared by every request.
  const clientOptions = { tls };
  const identity = createServiceClient(identityV1.IdentityServiceService, config.IDENTITY_GRPC_ADDRESS, clientOptions);
  const posts = createServiceClient(postsV1.PostsServiceService, config.POSTS_GRPC_ADDRESS, clientOptions);
  const totp = createServiceClient(totpV1.TotpServiceService, config.TOTP_GRPC_ADDRESS, clientOptions);
  const oauth = createServiceClient(oauthV1.OAuthServiceService, config.OAUTH_GRPC_ADDRESS, clientOptions);
  const passkeys = createServiceClient(passkeysV1.PasskeysServiceService, config.PASSKEYS_GRPC_ADDRESS, clientOptions);
  const probes = (
    [
      [config.IDENTITY_GRPC_ADDRESS, 'identity.v1.IdentityService'],
      [config.POSTS_GRPC_ADDRESS, 'posts.v1.PostsService'],
      [config.TOTP_GRPC_ADDRESS, 'totp.v1.TotpService'],
      [config.OAUTH_GRPC_ADDRESS, 'oauth.v1.OAuthService'],
      [config.PASSKEYS_GRPC_ADDRESS, 'passkeys.v1.PasskeysService'],
    ] as const
  ).map(([address, service]) => ({ probe: new HealthProbe(address, tls), service }));

  const registry = createMetricsRegistry('gateway');
  const postListCacheRequests = new Counter({
    name: 'post_list_cache_requests_total',
    help: 'Requests for the newest post page, by outcome: hit (served from memory), miss (fetched from posts), bypassed (Redis unavailable).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const limiter = new RateLimiter(redis, config.REDIS_KEY_PREFIX);
  const deps: GatewayDeps = {
    config,
    logger,
    identity,
    posts,
    totp,
    oauth,
    passkeys,
    sessions: new SessionStore(redis, config.REDIS_KEY_PREFIX, {
      slidingTtlMs: config.AUTH_SESSION_SLIDING_TTL_HOURS * HOUR_MS,
      maxLifetimeMs: config.AUTH_SESSION_MAX_LIFETIME_HOURS * HOUR_MS,
      refreshThresholdPercent: config.AUTH_SESSION_REFRESH_THRESHOLD,
      maxPerUser: config.AUTH_SESSION_MAX_PER_USER,
    }),
    tokens: new ServiceTokens({
      keys: config.AUTH_JWT_SIGNING_KEYS,
      issuer: config.AUTH_JWT_ISSUER ?? config.PUBLIC_APP_URL,
      audience: config.AUTH_JWT_AUDIENCE,
      ttlSeconds: config.AUTH_JWT_TTL_SECONDS,
    }),
    usage: new UsageLimits(limiter, config),
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
    ready: async () => {
      const answers = await Promise.all([
        redis.ping().then(
          () => true,
          () => false,
        ),
        ...probes.map(({ probe, service }) => probe.serving(service)),
      ]);
      return answers.every(Boolean);
    },
  };

  const app = await buildApp(deps);
  const url = await app.listen({ host: config.GATEWAY_HOST, port: config.GATEWAY_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.GATEWAY_PORT;
  const grpc = new ServiceServer({ logger, registry, tls, allowedCallers: config.SESSIONS_GRPC_ALLOWED_CALLERS });
  grpc.addService('sessions.v1.SessionsService', sessionsV1.SessionsServiceService, sessionsHandlers(deps.sessions));
  const grpcPort = await grpc.listen('0.0.0.0', config.GRPC_PORT);
  const operations = await startOperationsServer({ port: config.METRICS_PORT, registry, ready: deps.ready });
  return {
    readyFields: { url: url.replace('0.0.0.0', '127.0.0.1'), port, grpc_port: grpcPort, metrics_port: operations.port },
    async stop() {
      // close() stops accepting, answers 503 to new requests and waits for in-flight ones.
      await app.close();
      await grpc.shutdown(10_000);
      await operations.close();
      identity.close();
      posts.close();
      totp.close();
      oauth.close();
      passkeys.close();
      for (const { probe } of probes) probe.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
