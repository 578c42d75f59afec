import { z } from 'zod';

/**
 * What the bench process and its load worker (load-worker.ts) say to each
 * other over the IPC channel. Both sides parse what they receive, so a
 * mismatch fails loudly instead of measuring the wrong thing.
 */

/** One request the worker sends, rotated round-robin over all connections. */
export const requestTemplateSchema = z.object({
  method: z.enum(['GET', 'POST', 'PATCH']),
  path: z.string().startsWith('/'),
  headers: z.record(z.string(), z.string()),
  body: z.string().optional(),
});
export type RequestTemplate = z.infer<typeof requestTemplateSchema>;

/**
 * Post creation with a search probe: every `placeholder` in a template's
 * body becomes a word no other post has, the 201's title carries it back,
 * and the worker polls search until each word is found.
 */
export const searchProbeSchema = z.object({
  placeholder: z.string().min(1),
  /** One search request per batch of words this often. */
  pollIntervalMs: z.number().int().positive(),
  /** After the last create, how long to keep looking for the words not found yet. */
  settleTimeoutMs: z.number().int().positive(),
});
export type SearchProbe = z.infer<typeof searchProbeSchema>;

/** One orgs.v1 CheckPermission request and the answer every seeded membership gives it. */
export const permissionCheckSchema = z.object({
  userId: z.string().min(1),
  organizationId: z.string().min(1),
  permission: z.string().min(1),
  allowed: z.boolean(),
});
export type PermissionCheck = z.infer<typeof permissionCheckSchema>;

/**
 * A unary gRPC call, instead of HTTP (grpc-load.ts): `connections` calls in
 * flight on one channel, rotating over the given requests. An answer other
 * than the expected one counts like a non-2xx.
 */
export const grpcLoadSchema = z.discriminatedUnion('call', [
  /** sessions.v1 IntrospectSession of each token in turn; every one is live. */
  z.object({ call: z.literal('introspect-session'), address: z.string().min(1), tokens: z.array(z.string()).min(1) }),
  /** orgs.v1 OrganizationAccessService CheckPermission of each check in turn. */
  z.object({ call: z.literal('check-permission'), address: z.string().min(1), checks: z.array(permissionCheckSchema).min(1) }),
]);
export type GrpcLoad = z.infer<typeof grpcLoadSchema>;

/** The OpenID Provider's requests the load worker measures (oidc-token-load.ts). */
export const oidcModes = ['userinfo', 'introspect', 'auth', 'code', 'refresh'] as const;
export type OidcMode = (typeof oidcModes)[number];

export const loadJobSchema = z.object({
  type: z.literal('run'),
  /** Echoed in the answer. */
  id: z.number().int(),
  /** Origin of the server under load, e.g. `http://127.0.0.1:43121`. */
  url: z.url(),
  connections: z.number().int().positive(),
  durationSeconds: z.number().positive(),
  /** Requests per second over all connections; unset for as fast as the server answers. */
  overallRate: z.number().positive().optional(),
  /** Stop after this many requests instead of after `durationSeconds` (webhooks: one event per request). */
  amount: z.number().int().positive().optional(),
  requests: z.array(requestTemplateSchema).min(1),
  searchProbe: searchProbeSchema.optional(),
  /** Instead of HTTP: a unary gRPC call at `address`. */
  grpc: grpcLoadSchema.optional(),
  /**
   * Open-loop instead of autocannon's connections (open-loop-load.ts):
   * `requests` go out at `rate` a second, each on time whether or not the
   * earlier ones were answered, and beside them `writes` at `writeRate`.
   */
  openLoop: z
    .object({ rate: z.number().positive(), writes: z.array(requestTemplateSchema).min(1), writeRate: z.number().positive() })
    .optional(),
  /**
   * Instead of fixed requests: the OpenID Provider's token endpoint,
   * userinfo, introspection or authorization endpoint, with these browsers'
   * sessions (oidc-token-load.ts).
   */
  oidc: z.object({ mode: z.enum(oidcModes), sessionCookies: z.array(z.string()).min(1) }).optional(),
});
export type LoadJob = z.infer<typeof loadJobSchema>;

export const latencySummarySchema = z.object({
  count: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  meanMs: z.number(),
  maxMs: z.number(),
});

export const searchLatencySchema = latencySummarySchema.extend({
  /** Posts created (201) during the run. */
  created: z.number().int(),
  /** Created posts search did not return within the settle timeout; the latencies are of the others. */
  notFound: z.number().int(),
  /** Search requests the probe sent. */
  searches: z.number().int(),
});
export type SearchLatency = z.infer<typeof searchLatencySchema>;

/**
 * A Float64Array from the IPC channel. Checked by its tag, not instanceof:
 * under jest the test's globals are another realm's, and the array the
 * channel deserialises is not an instance of them.
 */
export const float64ArraySchema = z.custom<Float64Array>(
  (value) => Object.prototype.toString.call(value) === '[object Float64Array]',
  'expected a Float64Array',
);

export const loadResultSchema = z.object({
  durationSeconds: z.number(),
  /**
   * One entry per response, whatever its status, from the request's write
   * to its last byte. Raw rather than summarised, so that the rounds of one
   * scenario can be merged into exact percentiles.
   */
  latenciesMs: float64ArraySchema,
  non2xx: z.number().int(),
  /** Connection errors, including timeouts. */
  socketErrors: z.number().int(),
  timeouts: z.number().int(),
  statusCodes: z.record(z.string(), z.number().int()),
  /** The worker's own CPU time during the run: near a full core, the load generator is the bottleneck. */
  loaderCpuMs: z.number(),
  loaderPeakRssBytes: z.number(),
  searchLatency: searchLatencySchema.optional(),
  /** An open-loop job's writes: how many were answered 2xx, and how many not (status or socket error). */
  writes: z.object({ succeeded: z.number().int(), failed: z.number().int(), statusCodes: z.record(z.string(), z.number().int()) }).optional(),
});
export type LoadResult = z.infer<typeof loadResultSchema>;

export const workerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), id: z.number().int(), result: loadResultSchema }),
  z.object({ type: z.literal('error'), id: z.number().int(), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;
