import { seedLargeOrganization, type LargeOrganization } from './large-organization';
import { oidcModes, type LoadJob, type LoadResult, type PermissionCheck, type RequestTemplate } from './load-messages';
import { MEMBER_LISTING_PASSES, measureMemberListing, memberPagePaths, type MemberListing } from './member-listing';
import { measureScimListing, scimHeaders, scimPagePaths, seedScimDirectory, type ScimDirectory } from './scim-directory';
import { PEER_SESSION_COOKIE, peerJsonHeaders, type PeerUser } from './peer/peer-process';
import { costlySearchQueries, seedSearchCorpus, type RelevanceProbe } from './search-corpus';
import { measureSearchQuality, type SearchQuality } from './search-quality';
import { measureSearchUnderWrites, type SearchUnderWrites } from './search-under-writes';
import type { Seed, SeededUser } from './seed';
import { targets } from './targets';
import {
  awaitWebhookDeliveries,
  createWebhookEndpoints,
  removeWebhookEndpoints,
  roleToggleRequests,
  type WebhookDeliveries,
  type WebhookSetup,
} from './webhook-deliveries';
import type { WebhookReceivers } from './webhook-receiver-process';

/**
 * The scenarios in the order they run: reads first, then the ones that
 * write; search last, since its corpus would change what the lists read.
 */
export const scenarioNames = [
  'me',
  'me-org',
  'me-cluster',
  'introspect',
  'org-check',
  'token',
  'oidc-userinfo',
  'oidc-introspect',
  'oidc-auth',
  'oidc-code',
  'oidc-refresh',
  'post-get',
  'post-list',
  'login',
  'post-create',
  'org-members',
  'scim-users',
  'search',
  'webhooks',
] as const;
export type ScenarioName = (typeof scenarioNames)[number];

/**
 * Scenarios that run only when named (--scenarios): me-cluster starts a
 * Redis Cluster of 3 masters and 3 replicas and a second gateway on it;
 * webhooks sends a hundred thousand deliveries, minutes of load.
 */
export const optInScenarios: readonly ScenarioName[] = ['me-cluster', 'webhooks'];

export function isScenarioName(name: string): name is ScenarioName {
  return (scenarioNames as readonly string[]).includes(name);
}

/** One load-generator job without its duration, which the run decides. */
export type LoadPlan = Omit<LoadJob, 'type' | 'id' | 'durationSeconds'>;

export interface ScenarioContext {
  readonly gatewayUrl: string;
  /** sessions.v1 on the gateway, for the introspection scenario. */
  readonly gatewayGrpcAddress: string | undefined;
  /** orgs.v1 OrganizationAccessService on identity's platform listener, for org-check. */
  readonly orgsGrpcAddress: string | undefined;
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
  /** webhooks: events caused, and how many per second. */
  readonly webhookEvents: number;
  readonly webhookRate: number;
}

export interface PrepareContext {
  /** The launched stack's database. */
  readonly databaseUrl: string;
  readonly gatewayUrl: string;
  readonly seed: Seed;
  readonly searchPosts: number;
  /** Members of org-members' organisation, besides its owner. */
  readonly orgMembers: number;
  /** webhooks: the receivers' process, started by the run when the scenario is selected. */
  readonly webhookReceivers: WebhookReceivers | undefined;
  readonly onProgress: (message: string) => void;
  readonly signal?: AbortSignal;
}

/** What a scenario's `prepare` made, for its load and for what it measures alone afterwards. */
export interface Prepared {
  /** search: the planted old best matches. */
  readonly relevanceProbes?: readonly RelevanceProbe[];
  /** org-members: the organisation and the paths of all its member pages. */
  readonly largeOrganization?: LargeOrganization & { readonly pagePaths: readonly string[] };
  /** scim-users: a large organisation's directory as its identity provider provisioned it. */
  readonly scimDirectory?: ScimDirectory;
  /** webhooks: the organisation's endpoints and the receivers behind them. */
  readonly webhooks?: WebhookSetup & { readonly receivers: WebhookReceivers };
}

/** Inside the measured run, after the load: what the load set off, so that its CPU time and profile count too. */
export interface AfterLoadMeasurements {
  readonly webhookDeliveries?: WebhookDeliveries;
}

export interface AfterLoadContext {
  /** The launched stack's database. */
  readonly databaseUrl: string;
  readonly prepared: Prepared;
  readonly signal?: AbortSignal;
}

/** After the load: what one reader gets, one request at a time; it joins the scenario's result. */
export interface AloneMeasurements {
  readonly searchQuality?: SearchQuality;
  readonly memberListing?: MemberListing;
  readonly scimListing?: MemberListing;
  readonly searchUnderWrites?: SearchUnderWrites;
}

export interface AloneContext {
  readonly gatewayUrl: string;
  readonly prepared: Prepared;
  readonly seed: Seed;
  /** Runs of each costliest search query. */
  readonly searchRepeats: number;
  /** The scenario's measured seconds, for a phase under load of its own. */
  readonly durationSeconds: number;
  /** Runs a job on the load worker. */
  readonly load: (job: Omit<LoadJob, 'type' | 'id'>) => Promise<LoadResult>;
  readonly signal?: AbortSignal;
}

export type BaselinePlan =
  | { readonly kind: 'http'; readonly label: string; readonly load: (context: ScenarioContext) => LoadPlan }
  /** Raw Argon2id verifications with the identity service's parameters (baselines/argon2-rate.ts). */
  | { readonly kind: 'argon2'; readonly label: string }
  /**
   * A gateway of the stack, for a scenario that measures the gateway in
   * another setting: the stack's own, or me-cluster's second one on one Redis
   * (redis-gateways.ts).
   */
  | {
      readonly kind: 'gateway';
      readonly gateway: 'stack' | 'one-redis';
      readonly label: string;
      readonly load: (context: ScenarioContext) => LoadPlan;
    }
  | { readonly kind: 'none' };

/** The same request to the peer, another implementation of the route, measured beside the gateway. */
export interface PeerPlan {
  readonly label: string;
  readonly load: (context: ScenarioContext) => LoadPlan;
}

export interface Scenario {
  readonly name: ScenarioName;
  readonly label: string;
  /** The unit that answers the measured requests, when it is not the gateway. */
  readonly unit?: string;
  readonly gateway: (context: ScenarioContext, prepared: Prepared) => LoadPlan;
  readonly baseline: BaselinePlan;
  readonly peer?: PeerPlan;
  /** Work before the scenario's first run, such as writing a corpus; only on a launched stack. */
  readonly prepare?: (context: PrepareContext) => Promise<Prepared>;
  /** After the load, with what `prepare` made: what one reader gets alone (search's latency and relevance, a member listing's pages), and search at a fixed rate under writes. */
  readonly alone?: (context: AloneContext) => Promise<AloneMeasurements>;
  /** Waits, within the measured run, for what the load set off (webhooks: every delivery). */
  readonly afterLoad?: (context: AfterLoadContext) => Promise<AfterLoadMeasurements>;
  /** Undoes what `prepare` made once the scenario is measured, so that it goes on no more. */
  readonly cleanUp?: (context: { readonly gatewayUrl: string; readonly prepared: Prepared }) => Promise<void>;
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

const costlySearchPaths = (): string[] => costlySearchQueries().map((query) => `/v0/search/posts?limit=20&q=${encodeURIComponent(query)}`);

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

/**
 * GET /v0/users/me with every seeded session in turn, so that no single
 * Redis key or cached row is all that is read: the sessions acting for no
 * organisation, or (`orgCookie`) those acting for the seed's.
 */
const mePlan = (context: ScenarioContext, url: string, session: 'cookie' | 'orgCookie' = 'cookie'): LoadPlan => ({
  url,
  connections: context.connections,
  requests: context.seed.users.map((user) => ({ method: 'GET', path: '/v0/users/me', headers: sessionHeaders(user[session]) })),
});

/** The permissions org-check asks about: one a member holds, one only admins and owners hold, one of an application's own. */
const CHECKED_PERMISSIONS = ['members:read', 'members:manage', 'reports:export'] as const;

/** Each seeded account with each checked permission in the seed's organisation, and the answer its role gives. */
export function permissionChecks(seed: Pick<Seed, 'users' | 'organizationId'>): PermissionCheck[] {
  return seed.users.flatMap((user: SeededUser) =>
    CHECKED_PERMISSIONS.map((permission) => ({
      userId: user.id,
      organizationId: seed.organizationId,
      permission,
      allowed: user.orgRole === 'owner' || permission === 'members:read',
    })),
  );
}

/** The introspection floor: a bare grpc-js server whose IntrospectSession does one Redis GET. */
const introspectionFloor: BaselinePlan = {
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
};

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
    name: 'me-org',
    label: 'GET /v0/users/me, acting for an organisation',
    // The same accounts, through sessions acting for their organisation: `me` then also shows active_org.
    gateway: (context) => mePlan(context, context.gatewayUrl, 'orgCookie'),
    baseline: {
      kind: 'gateway',
      gateway: 'stack',
      label: 'GET /v0/users/me, no organisation',
      load: (context) => mePlan(context, context.gatewayUrl),
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
      gateway: 'one-redis',
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
    baseline: introspectionFloor,
    warmsUp: true,
  },
  {
    name: 'org-check',
    label: 'orgs.v1 CheckPermission (gRPC)',
    unit: 'identity',
    // What a service beside Latchkey pays to ask whether a user may act in an organisation, beside checking a session.
    gateway: (context) => {
      if (!context.orgsGrpcAddress) throw new Error("identity's platform address is unknown (BENCH_ORGS_GRPC_ADDRESS)");
      return {
        url: context.gatewayUrl,
        connections: context.connections,
        requests: [{ method: 'GET', path: '/', headers: {} }],
        grpc: { call: 'check-permission', address: context.orgsGrpcAddress, checks: permissionChecks(context.seed) },
      };
    },
    baseline: introspectionFloor,
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
  ...oidcModes.map(
    (mode): Scenario => ({
      name: `oidc-${mode}`,
      label: {
        userinfo: 'GET /oidc/userinfo',
        introspect: 'POST /oidc/token/introspection',
        auth: 'GET /oidc/auth (signed in, no page)',
        code: 'POST /oidc/token (code exchange)',
        refresh: 'POST /oidc/token (refresh, rotated)',
      }[mode],
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
    name: 'org-members',
    label: 'GET /v0/orgs/{id}/members?limit=100, a large organisation',
    prepare: async (context) => {
      const owner = context.seed.users.find((user) => user.orgRole === 'owner');
      if (!owner) throw new Error('the seed has no organisation owner');
      const organization = await seedLargeOrganization(context.databaseUrl, owner, context.orgMembers);
      context.onProgress(`org-members: an organisation of ${organization.members} members`);
      return { largeOrganization: { ...organization, pagePaths: await memberPagePaths(context.gatewayUrl, organization, context.signal) } };
    },
    // Every page in turn, as the organisation's owner reads them.
    gateway: (context, prepared) => {
      const organization = prepared.largeOrganization;
      if (!organization) throw new Error('org-members runs after its prepare');
      return {
        url: context.gatewayUrl,
        connections: context.connections,
        requests: organization.pagePaths.map((path) => ({ method: 'GET', path, headers: sessionHeaders(organization.readerCookie) })),
      };
    },
    alone: async ({ gatewayUrl, prepared, signal }) => {
      if (!prepared.largeOrganization) throw new Error('org-members runs after its prepare');
      return { memberListing: await measureMemberListing(gatewayUrl, prepared.largeOrganization, MEMBER_LISTING_PASSES, signal) };
    },
    baseline: { kind: 'none' },
    warmsUp: true,
  },
  {
    name: 'scim-users',
    label: 'GET /scim/v2/Users?count=100, a large directory',
    // The org-members scenario's size: an identity provider importing a directory of that many people.
    prepare: async (context) => {
      const owner = context.seed.users.find((user) => user.orgRole === 'owner');
      if (!owner) throw new Error('the seed has no organisation owner');
      const directory = await seedScimDirectory(context.databaseUrl, await seedLargeOrganization(context.databaseUrl, owner, context.orgMembers));
      context.onProgress(`scim-users: a directory of ${directory.users} provisioned users`);
      return { scimDirectory: directory };
    },
    gateway: (context, prepared) => {
      const directory = prepared.scimDirectory;
      if (!directory) throw new Error('scim-users runs after its prepare');
      const headers = scimHeaders(directory);
      return { url: context.gatewayUrl, connections: context.connections, requests: scimPagePaths(directory.users).map((path) => ({ method: 'GET', path, headers })) };
    },
    alone: async ({ gatewayUrl, prepared, signal }) => {
      if (!prepared.scimDirectory) throw new Error('scim-users runs after its prepare');
      return { scimListing: await measureScimListing(gatewayUrl, prepared.scimDirectory, MEMBER_LISTING_PASSES, signal) };
    },
    baseline: { kind: 'none' },
    warmsUp: true,
  },
  {
    name: 'search',
    label: 'GET /v0/search/posts, the costliest queries',
    prepare: async (context) => ({ relevanceProbes: await seedSearchCorpus(context.databaseUrl, context.searchPosts, context.onProgress) }),
    gateway: (context) => ({
      url: context.gatewayUrl,
      connections: context.connections,
      requests: rotate(costlySearchPaths()),
    }),
    // Alone first, then under writes: the posts created meanwhile would change what the relevance probes find.
    alone: async ({ gatewayUrl, prepared, seed, searchRepeats, durationSeconds, load, signal }) => {
      const searchQuality = await measureSearchQuality(gatewayUrl, costlySearchQueries(), prepared.relevanceProbes ?? [], searchRepeats, signal);
      signal?.throwIfAborted();
      const { searchRate, createRate } = targets.searchUnderWrites;
      const searchUnderWrites = await measureSearchUnderWrites({ gatewayUrl, seed, durationSeconds, searchRate, createRate, searchPaths: costlySearchPaths(), load });
      return { searchQuality, searchUnderWrites };
    },
    baseline: { kind: 'none' },
    warmsUp: true,
  },
  {
    name: 'webhooks',
    label: 'PATCH /v0/orgs/{id}/members/{user_id} → 10 webhook endpoints',
    // Issue 33: each role change is a message to each of 9 live endpoints and to 1 that is down.
    prepare: async (context) => {
      if (!context.webhookReceivers) throw new Error('the webhook receivers are not running');
      const setup = await createWebhookEndpoints(context.gatewayUrl, context.seed, context.webhookReceivers);
      context.onProgress(`webhooks: ${setup.endpoints.length} endpoints, ${setup.memberIds.length} members whose roles change`);
      return { webhooks: { ...setup, receivers: context.webhookReceivers } };
    },
    gateway: (context, prepared) => {
      if (!prepared.webhooks) throw new Error('webhooks runs after its prepare');
      return {
        url: context.gatewayUrl,
        connections: context.connections,
        overallRate: context.webhookRate,
        amount: context.webhookEvents,
        requests: roleToggleRequests(prepared.webhooks),
      };
    },
    afterLoad: async ({ databaseUrl, prepared, signal }) => {
      if (!prepared.webhooks) throw new Error('webhooks runs after its prepare');
      return { webhookDeliveries: await awaitWebhookDeliveries(databaseUrl, prepared.webhooks, prepared.webhooks.receivers, signal) };
    },
    cleanUp: async ({ gatewayUrl, prepared }) => {
      if (prepared.webhooks) await removeWebhookEndpoints(gatewayUrl, prepared.webhooks);
    },
    baseline: { kind: 'none' },
    // Warm-up events would be deliveries still under way when the measured ones start.
    warmsUp: false,
  },
];
