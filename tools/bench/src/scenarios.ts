import type { LoadJob, RequestTemplate } from './load-messages';
import { PEER_SESSION_COOKIE, peerJsonHeaders, type PeerUser } from './peer/peer-process';
import { costlySearchQueries, seedSearchCorpus, type RelevanceProbe } from './search-corpus';
import { measureSearchQuality, type SearchQuality } from './search-quality';
import type { Seed } from './seed';

/**
 * The scenarios in the order they run: reads first, then the ones that
 * write; search last, since its corpus would change what the lists read.
 */
export const scenarioNames = [
  'me',
  'me-cluster',
  'introspect',
  'token',
  'oidc-userinfo',
  'oidc-code',
  'oidc-refresh',
  'post-get',
  'post-list',
  'login',
  'post-create',
  'search',
] as const;
export type ScenarioName = (typeof scenarioNames)[number];

/**
 * Scenarios that run only when named (--scenarios): me-cluster starts a
 * Redis Cluster of 3 masters and 3 replicas and a second gateway on it.
 */
export const optInScenarios: readonly ScenarioName[] = ['me-cluster'];

export function isScenarioName(name: string): name is ScenarioName {
  return (scenarioNames as readonly string[]).includes(name);
}

/** One load-generator job without its duration, which the run decides. */
export type LoadPlan = Omit<LoadJob, 'type' | 'id' | 'durationSeconds'>;

export interface ScenarioContext {
  readonly gatewayUrl: string;
  /** sessions.v1 on the gateway, for the introspection scenario. */
  readonly gatewayGrpcAddress: string | undefined;
  /** The bare Fastify server of the read baselines. */
  readonly bareServerUrl: string | undefined;
  /** The bare server's gRPC port (sessions.v1 IntrospectSession's floor), `host:port`. */
  readonly bareGrpcAddress: string | undefined;
  /** The peer (peer/better-auth-server.ts) and its accounts, when a selected scenario compares with it. */
  readonly peer: { readonly url: string; readonly users: readonly PeerUser[] } | undefined;
  /**
   * Two more gateways of the same stack (me-cluster), one on a Redis of its
   * own and one on a Redis Cluster, holding the same sessions.
   */
  readonly standaloneGatewayUrl: string | undefined;
  readonly clusterGatewayUrl: string | undefined;
  readonly seed: Seed;
  readonly connections: number;
  /** post-create's rate, creates per second over all connections. */
  readonly createRate: number;
}

export interface PrepareContext {
  /** The launched stack's database. */
  readonly databaseUrl: string;
  readonly searchPosts: number;
  readonly onProgress: (message: string) => void;
}

export type BaselinePlan =
  | { readonly kind: 'http'; readonly label: string; readonly load: (context: ScenarioContext) => LoadPlan }
  /** Raw Argon2id verifications with the identity service's parameters (baselines/argon2-rate.ts). */
  | { readonly kind: 'argon2'; readonly label: string }
  /** The stack's own gateway, for a scenario that measures the gateway in another setting. */
  | { readonly kind: 'gateway'; readonly label: string; readonly load: (context: ScenarioContext) => LoadPlan }
  | { readonly kind: 'none' };

/** The same request to the peer, another implementation of the route, measured beside the gateway. */
export interface PeerPlan {
  readonly label: string;
  readonly load: (context: ScenarioContext) => LoadPlan;
}

export interface Scenario {
  readonly name: ScenarioName;
  readonly label: string;
  readonly gateway: (context: ScenarioContext) => LoadPlan;
  readonly baseline: BaselinePlan;
  readonly peer?: PeerPlan;
  /** Work before the scenario's first run, such as writing a corpus; only on a launched stack. */
  readonly prepare?: (context: PrepareContext) => Promise<readonly RelevanceProbe[]>;
  /** After the load: what one reader gets from search (latency alone, relevance), with what `prepare` planted. */
  readonly quality?: (
    gatewayUrl: string,
    probes: readonly RelevanceProbe[],
    repeats: number,
    signal?: AbortSignal,
  ) => Promise<SearchQuality>;
  /**
   * Whether a warm-up run precedes the measured one. Not for post-create:
   * warm-up posts would queue index jobs that run during the measurement.
   */
  readonly warmsUp: boolean;
}

/** Replaced, in every post-create body, by a word no other post has (search-probe.ts). */
export const UNIQUE_WORD = '@@word@@';

const sessionHeaders = (cookie: string): Record<string, string> => ({ cookie: `session_id=${cookie}` });
const json = { 'content-type': 'application/json' };

function bareServer(context: ScenarioContext): string {
  if (!context.bareServerUrl) throw new Error('the bare server is not running');
  return context.bareServerUrl;
}

function peerOf(context: ScenarioContext): NonNullable<ScenarioContext['peer']> {
  if (!context.peer) throw new Error('the peer is not running');
  return context.peer;
}

const rotate = (paths: readonly string[]): RequestTemplate[] => paths.map((path) => ({ method: 'GET', path, headers: {} }));

/** The floor of an authenticated request: one Redis GET of the session behind a bare Fastify route. */
const meBaseline: BaselinePlan = {
  kind: 'http',
  label: 'bare Fastify: 1 Redis GET',
  load: (context) => ({
    url: bareServer(context),
    connections: context.connections,
    requests: context.seed.users.map((user) => ({ method: 'GET', path: '/me', headers: sessionHeaders(user.cookie) })),
  }),
};

const peerCookie = (cookie: string): Record<string, string> => ({ cookie: `${PEER_SESSION_COOKIE}=${cookie}` });

/** GET /v0/users/me with every seeded session in turn, so that no single Redis key or cached row is all that is read. */
const mePlan = (context: ScenarioContext, url: string): LoadPlan => ({
  url,
  connections: context.connections,
  requests: context.seed.users.map((user) => ({ method: 'GET', path: '/v0/users/me', headers: sessionHeaders(user.cookie) })),
});

export const scenarios: readonly Scenario[] = [
  {
    name: 'me',
    label: 'GET /v0/users/me',
    gateway: (context) => mePlan(context, context.gatewayUrl),
    baseline: meBaseline,
    peer: {
      label: 'Better Auth GET /api/auth/get-session',
      load: (context) => ({
        url: peerOf(context).url,
        connections: context.connections,
        requests: peerOf(context).users.map((user) => ({ method: 'GET', path: '/api/auth/get-session', headers: peerCookie(user.cookie) })),
      }),
    },
    warmsUp: true,
  },
  {
    name: 'me-cluster',
    label: 'GET /v0/users/me, Redis Cluster',
    // The same sessions on a Redis Cluster (3 masters, 3 replicas), against a gateway started alike on one Redis.
    gateway: (context) => {
      if (!context.clusterGatewayUrl) throw new Error('the gateway on the Redis Cluster is not running');
      return mePlan(context, context.clusterGatewayUrl);
    },
    baseline: {
      kind: 'gateway',
      label: 'GET /v0/users/me, one Redis',
      load: (context) => {
        if (!context.standaloneGatewayUrl) throw new Error('the gateway on one Redis is not running');
        return mePlan(context, context.standaloneGatewayUrl);
      },
    },
    warmsUp: true,
  },
  {
    name: 'introspect',
    label: 'sessions.v1 IntrospectSession (gRPC)',
    // What a service beside Latchkey pays per request to check a session, beside what GET /v0/users/me costs a browser.
    gateway: (context) => {
      if (!context.gatewayGrpcAddress) throw new Error('the gateway gRPC address is unknown (BENCH_GRPC_ADDRESS)');
      return {
        url: context.gatewayUrl,
        connections: context.connections,
        requests: [{ method: 'GET', path: '/', headers: {} }],
        grpc: { call: 'introspect-session', address: context.gatewayGrpcAddress, tokens: context.seed.users.map((user) => user.cookie) },
      };
    },
    baseline: {
      kind: 'http',
      label: 'bare gRPC unary: 1 Redis GET',
      load: (context) => {
        if (!context.bareGrpcAddress) throw new Error('the bare server is not running');
        return {
          url: bareServer(context),
          connections: context.connections,
          requests: [{ method: 'GET', path: '/', headers: {} }],
          grpc: { call: 'introspect-session', address: context.bareGrpcAddress, tokens: context.seed.users.map((user) => user.cookie) },
        };
      },
    },
    warmsUp: true,
  },
  {
    name: 'token',
    label: 'POST /v0/auth/token',
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: context.seed.users.map((user) => ({ method: 'POST', path: '/v0/auth/token', headers: sessionHeaders(user.cookie) })),
    }),
    baseline: {
      kind: 'http',
      label: 'bare Fastify: 1 Redis GET + 1 Ed25519 sign',
      load: (context) => ({
        url: bareServer(context),
        connections: context.connections,
        requests: context.seed.users.map((user) => ({ method: 'POST', path: '/token', headers: sessionHeaders(user.cookie) })),
      }),
    },
    warmsUp: true,
  },
  ...(['userinfo', 'code', 'refresh'] as const).map(
    (mode): Scenario => ({
      name: `oidc-${mode}`,
      label: { userinfo: 'GET /oidc/userinfo', code: 'POST /oidc/token (code exchange)', refresh: 'POST /oidc/token (refresh, rotated)' }[mode],
      // Each of the connections is a browser of a seeded user with its own codes and tokens (oidc-token-load.ts).
      gateway: (context) => ({
        url: context.gatewayUrl,
        connections: context.connections,
        requests: [{ method: 'GET', path: '/', headers: {} }],
        oidc: { mode, sessionCookies: context.seed.users.map((user) => user.cookie) },
      }),
      baseline: meBaseline,
      warmsUp: true,
    }),
  ),
  {
    name: 'post-get',
    label: 'GET /v0/posts/{id}',
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: rotate(context.seed.postIds.map((id) => `/v0/posts/${id}`)),
    }),
    baseline: {
      kind: 'http',
      label: 'bare Fastify: 1 PG read + 1 S3 GET',
      load: (context) => ({
        url: bareServer(context),
        connections: context.connections,
        requests: rotate(context.seed.postIds.map((id) => `/posts/${id}`)),
      }),
    },
    warmsUp: true,
  },
  {
    name: 'post-list',
    label: 'GET /v0/posts?limit=20',
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: rotate(['/v0/posts?limit=20']),
    }),
    baseline: {
      kind: 'http',
      label: 'bare Fastify: same keyset query',
      load: (context) => ({ url: bareServer(context), connections: context.connections, requests: rotate(['/posts']) }),
    },
    warmsUp: true,
  },
  {
    name: 'login',
    label: 'POST /v0/auth/login',
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: context.seed.users.map((user) => ({
        method: 'POST',
        path: '/v0/auth/login',
        headers: json,
        body: JSON.stringify({ email: user.email, password: user.password }),
      })),
    }),
    baseline: { kind: 'argon2', label: 'raw argon2id verifies' },
    peer: {
      label: 'Better Auth POST /api/auth/sign-in/email',
      load: (context) => {
        const { url, users } = peerOf(context);
        return {
          url,
          connections: context.connections,
          requests: users.map((user) => ({
            method: 'POST',
            path: '/api/auth/sign-in/email',
            headers: peerJsonHeaders(url),
            body: JSON.stringify({ email: user.email, password: user.password }),
          })),
        };
      },
    },
    warmsUp: true,
  },
  {
    name: 'post-create',
    label: 'POST /v0/posts',
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      overallRate: context.createRate,
      requests: context.seed.users.map((user) => ({
        method: 'POST',
        path: '/v0/posts',
        headers: { ...json, ...sessionHeaders(user.cookie) },
        body: JSON.stringify({
          title: `Bench ${UNIQUE_WORD}`,
          content: `Created under load. The word ${UNIQUE_WORD} appears in this post only.`,
        }),
      })),
      searchProbe: { placeholder: UNIQUE_WORD, pollIntervalMs: 50, settleTimeoutMs: 10_000 },
    }),
    baseline: { kind: 'none' },
    warmsUp: false,
  },
  {
    name: 'search',
    label: 'GET /v0/search/posts, the costliest queries',
    prepare: (context) => seedSearchCorpus(context.databaseUrl, context.searchPosts, context.onProgress),
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: rotate(costlySearchQueries().map((query) => `/v0/search/posts?limit=20&q=${encodeURIComponent(query)}`)),
    }),
    quality: (gatewayUrl, probes, repeats, signal) => measureSearchQuality(gatewayUrl, costlySearchQueries(), probes, repeats, signal),
    baseline: { kind: 'none' },
    warmsUp: true,
  },
];
