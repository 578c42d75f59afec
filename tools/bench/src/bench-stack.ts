import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchStack, repositoryRoot, type RunningStack, type StackEvent } from '@latchkey/stack';
import { Redis } from 'ioredis';
import { dropTestDatabase } from '@latchkey/test-kit';
import type { BareServerConfig } from './baselines/baseline-messages';
import { BENCH_OIDC_CLIENT } from './oidc-token-load';
import { profilerEnvironment } from './cpu-profiles';
import { deleteStreams } from './jetstream-cleanup';
import type { WatchedProcess } from './process-usage';

/**
 * The system under test: a throwaway stack this run starts (the default), or
 * a running one named by BENCH_URL. Either way the bench talks to it over
 * HTTP only; the rest is what the baselines and the /proc readings need.
 */
export interface BenchTarget {
  readonly gatewayUrl: string;
  /** The gateway's gRPC port (sessions.v1), `host:port`; BENCH_GRPC_ADDRESS for an external stack. */
  readonly gatewayGrpcAddress: string | undefined;
  /**
   * identity's platform listener (ADMIN_GRPC_PORT: orgs.v1
   * OrganizationAccessService), `host:port`, plaintext; BENCH_ORGS_GRPC_ADDRESS
   * for an external stack.
   */
  readonly orgsGrpcAddress: string | undefined;
  /** `launched`: ours, removed at the end; `external`: BENCH_URL's. */
  readonly kind: 'launched' | 'external';
  /** The stack's processes; empty for an external stack without BENCH_PIDS. */
  readonly processes: readonly WatchedProcess[];
  /** Prometheus endpoints by unit, for per-RPC timings; empty for an external stack. */
  readonly metricsUrls: ReadonlyMap<string, string>;
  /** Where the bare server finds the same Redis keys, tables and objects. */
  readonly baseline: Omit<BareServerConfig, 'type'>;
  /**
   * What the launched stack's gateway was started with (the stack's
   * environment and the units' addresses), for a second gateway of the same
   * stack; undefined for an external stack.
   */
  readonly gatewayEnvironment: Readonly<Record<string, string>> | undefined;
  /** The identity service's Argon2id parameters. */
  readonly argon2: { readonly memoryKiB: number; readonly timeCost: number; readonly parallelism: number };
  /** libuv's thread pool size in the stack's processes: how many hashes identity runs at once. */
  readonly threadPoolSize: number;
  /** The token of the newest mail to `email` with a link to `page` (docs/api.md, "Links and tokens"). */
  mailedToken(email: string, page: MailedLink, timeoutMs: number): Promise<string>;
  /** Stops what the bench started and removes its database, streams, keys and files. */
  close(): Promise<void>;
}

export interface BenchTargetSettings {
  /** Where BENCH_URL, BENCH_PIDS, DATABASE_URL and the rest are read; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** When set, the launched units load the profiler of cpu-profiles.ts, which writes there. */
  readonly cpuProfileDir?: string;
  readonly onEvent?: (event: StackEvent) => void;
  /** Aborting while the stack starts stops what has started. */
  readonly signal?: AbortSignal;
}

/** Effectively no limit: the bench logs in hundreds of times a second from one address. */
const UNLIMITED = '100000000';

/** The identity service's defaults (services/identity/src/config.ts, OWASP's Argon2id minimum). */
const ARGON2_DEFAULTS = { memoryKiB: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The pages of the web app whose links the seeding follows: an address's verification and an invitation. */
export type MailedLink = 'verify-email' | 'invitations/accept';

function linkPattern(page: MailedLink): RegExp {
  return new RegExp(`/${page}\\?token=([A-Za-z0-9_-]+)`);
}

function argon2Parameters(env: NodeJS.ProcessEnv): BenchTarget['argon2'] {
  const read = (name: string, fallback: number): number => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    memoryKiB: read('ARGON2_MEMORY_KIB', ARGON2_DEFAULTS.memoryKiB),
    timeCost: read('ARGON2_TIME_COST', ARGON2_DEFAULTS.timeCost),
    parallelism: read('ARGON2_PARALLELISM', ARGON2_DEFAULTS.parallelism),
  };
}

function threadPoolSize(env: NodeJS.ProcessEnv): number {
  const size = Number(env.UV_THREADPOOL_SIZE);
  // libuv's default when the variable is unset.
  return Number.isInteger(size) && size > 0 ? size : 4;
}

/** `name=pid,name=pid`, the processes of an external stack. */
export function parseProcessList(value: string | undefined): WatchedProcess[] {
  if (!value) return [];
  return value.split(',').map((entry) => {
    const [name, pid] = entry.split('=').map((part) => part.trim());
    if (!name || !pid || !/^\d+$/.test(pid)) throw new Error(`BENCH_PIDS: expected name=pid, got "${entry}"`);
    return { name, role: 'stack', pid: Number(pid) };
  });
}

/** Opens the system under test: BENCH_URL's stack, or a new one on random ports. */
export function openBenchTarget(settings: BenchTargetSettings): Promise<BenchTarget> {
  const env = settings.env ?? process.env;
  return env.BENCH_URL ? Promise.resolve(externalTarget(env.BENCH_URL, env)) : launchTarget(settings, env);
}

async function launchTarget(settings: BenchTargetSettings, given: NodeJS.ProcessEnv): Promise<BenchTarget> {
  const name = `latchkey_bench_${randomBytes(4).toString('hex')}`;
  const scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-bench-'));
  // What a deployment would set too: where the backing services are, and the knobs that change performance.
  const passedThrough = [
    'DATABASE_URL',
    'REDIS_URL',
    'NATS_URL',
    'UV_THREADPOOL_SIZE',
    'ARGON2_MEMORY_KIB',
    'ARGON2_TIME_COST',
    'ARGON2_PARALLELISM',
    'MALLOC_ARENA_MAX',
    'MALLOC_MMAP_THRESHOLD_',
    'WEBHOOK_CONCURRENCY',
    'WEBHOOK_ENDPOINT_CONCURRENCY',
    'SEARCH_RANK_CANDIDATES',
    'SEARCH_RANK_CHAMPIONS',
  ];
  const env: Record<string, string | undefined> = {
    PATH: given.PATH,
    HOME: given.HOME,
    ...Object.fromEntries(passedThrough.map((variable) => [variable, given[variable]])),
    // The units' Node flags, apart from the bench's own (a heap limit for them must not starve s3rver here).
    NODE_OPTIONS: given.BENCH_NODE_OPTIONS,
    // What production runs: the gateway logs every request. (The launcher needs info: it waits for each unit's `ready` line.)
    LOG_LEVEL: 'info',
    OTEL_SDK_DISABLED: 'true',
    // Generated here so that the launcher does not create .data/stack-secrets.json for a throwaway stack.
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_LOGIN_FAILURES: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    RATE_LIMIT_POST_WRITES: UNLIMITED,
    RATE_LIMIT_SEARCH_MAX: UNLIMITED,
    // One organisation invites every seeded account.
    RATE_LIMIT_INVITATIONS: UNLIMITED,
    // scim-users reads a directory as fast as one identity provider's token may.
    RATE_LIMIT_SCIM_REQUESTS: UNLIMITED,
    // The OpenID Provider's scenarios sign in and ask for tokens from one address, far past a browser's or client's rate.
    RATE_LIMIT_OIDC_AUTHORIZE_MAX: UNLIMITED,
    RATE_LIMIT_OIDC_TOKEN_MAX: UNLIMITED,
    // The OpenID Provider's scenarios sign in through this client.
    OIDC_CLIENTS: JSON.stringify([BENCH_OIDC_CLIENT]),
    // WEBHOOK_SEALING_PUBLIC_KEY stays unset: the launcher then gives identity and the jobs worker
    // the two halves of its own sealing key pair, so that the webhooks scenario's messages can be signed.
    ...(settings.cpuProfileDir ? profilerEnvironment(settings.cpuProfileDir, given.BENCH_NODE_OPTIONS) : {}),
  };
  let stack: RunningStack;
  try {
    stack = await launchStack({
      env,
      randomPorts: true,
      databaseName: name,
      natsSubjectPrefix: name,
      redisKeyPrefix: `${name}:`,
      mailDir: path.join(scratch, 'mail'),
      s3Dir: path.join(scratch, 's3'),
      ...(settings.onEvent ? { onEvent: settings.onEvent } : {}),
      ...(settings.signal ? { signal: settings.signal } : {}),
    });
  } catch (error) {
    await removeLeftovers(name, env).catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }

  const processes: WatchedProcess[] = [];
  const metricsUrls = new Map<string, string>();
  for (const unit of stack.processes.values()) {
    if (unit.pid !== undefined) processes.push({ name: unit.name, role: 'stack', pid: unit.pid });
    const port = unit.ports.METRICS_PORT;
    if (port !== undefined) metricsUrls.set(unit.name, `http://127.0.0.1:${port}/metrics`);
  }
  const stackEnv = stack.env;
  const gatewayGrpcPort = stack.processes.get('gateway')?.ports.GRPC_PORT;
  const orgsGrpcPort = stack.processes.get('identity')?.ports.ADMIN_GRPC_PORT;
  const unitAddresses = Object.fromEntries(
    [...stack.processes.values()]
      .filter((unit) => unit.name !== 'gateway' && unit.ports.GRPC_PORT !== undefined)
      .map((unit) => [`${unit.name.toUpperCase()}_GRPC_ADDRESS`, `127.0.0.1:${String(unit.ports.GRPC_PORT)}`]),
  );
  const smtp = stack.smtp;
  let closed: Promise<void> | undefined;
  return {
    gatewayUrl: stack.gatewayUrl,
    gatewayGrpcAddress: gatewayGrpcPort === undefined ? undefined : `127.0.0.1:${gatewayGrpcPort}`,
    orgsGrpcAddress: orgsGrpcPort === undefined ? undefined : `127.0.0.1:${orgsGrpcPort}`,
    kind: 'launched',
    processes,
    metricsUrls,
    gatewayEnvironment: { ...stackEnv, ...unitAddresses },
    baseline: baselineConfig(stackEnv),
    argon2: argon2Parameters(stackEnv),
    threadPoolSize: threadPoolSize(stackEnv),
    async mailedToken(email, page, timeoutMs) {
      if (!smtp) throw new Error('the launched stack has no mail catcher (SMTP_URL was set)');
      const link = linkPattern(page);
      const mail = await smtp.waitForMail((m) => m.to.includes(email) && link.test(m.text), timeoutMs);
      return tokenIn(mail.text, link, email);
    },
    close() {
      closed ??= (async () => {
        await stack.stop();
        await removeLeftovers(name, stackEnv);
        rmSync(scratch, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

function tokenIn(text: string, link: RegExp, email: string): string {
  const token = link.exec(text)?.[1];
  if (!token) throw new Error(`no link like ${link.source} in the mail to ${email}`);
  return token;
}

/** The bare server's view of the stack's Redis, PostgreSQL and S3 (the posts service's variables and defaults). */
function baselineConfig(env: Readonly<Record<string, string | undefined>>): Omit<BareServerConfig, 'type'> {
  return {
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'latchkey:',
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/latchkey',
    databasePoolMax: Number(env.DATABASE_POOL_MAX ?? 10),
    s3: {
      // pnpm stack's embedded store (tools/stack/README.md) when the variables are unset.
      endpoint: env.S3_ENDPOINT ?? 'http://127.0.0.1:4569',
      region: env.S3_REGION ?? 'us-east-1',
      bucket: env.S3_BUCKET ?? 'latchkey-posts',
      accessKeyId: env.S3_ACCESS_KEY_ID ?? 'S3RVER',
      secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? 'S3RVER',
      forcePathStyle: (env.S3_FORCE_PATH_STYLE ?? 'true') === 'true',
    },
  };
}

/**
 * The throwaway stack's database, JetStream streams (named as in
 * packages/job-streams/src/job-streams.ts) and Redis keys.
 */
async function removeLeftovers(name: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const natsUrl = env.NATS_URL ?? 'nats://127.0.0.1:4222';
  await deleteStreams(natsUrl, [`${name.toUpperCase()}_JOBS`, `${name.toUpperCase()}_DEAD`]).catch(() => undefined);

  const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }

  const adminUrl = new URL(env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  adminUrl.pathname = '/postgres';
  // The stack made a role per unit, named after the database: they go with it.
  await dropTestDatabase(adminUrl.toString(), name);
}

/**
 * A stack started elsewhere (`pnpm stack`). Mails are read from its mail
 * directory (BENCH_MAIL_DIR, default `.data/mail`), where the stack's
 * catcher writes each text part as `<time>-<recipient>.txt`.
 */
function externalTarget(url: string, env: NodeJS.ProcessEnv): BenchTarget {
  const mailDir = env.BENCH_MAIL_DIR ?? path.join(repositoryRoot, '.data', 'mail');
  return {
    gatewayUrl: url.replace(/\/$/, ''),
    gatewayGrpcAddress: env.BENCH_GRPC_ADDRESS,
    orgsGrpcAddress: env.BENCH_ORGS_GRPC_ADDRESS,
    kind: 'external',
    processes: parseProcessList(env.BENCH_PIDS),
    metricsUrls: new Map(),
    gatewayEnvironment: undefined,
    baseline: baselineConfig(env),
    argon2: argon2Parameters(env),
    threadPoolSize: threadPoolSize(env),
    async mailedToken(email, page, timeoutMs) {
      const link = linkPattern(page);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        // Newest first: an address gets other mails too (a verification, then an invitation).
        const names = (await readdir(mailDir).catch(() => [] as string[]))
          .filter((file) => file.endsWith(`-${email}.txt`))
          .sort()
          .reverse();
        for (const name of names) {
          const text = await readFile(path.join(mailDir, name), 'utf8');
          if (link.test(text)) return tokenIn(text, link, email);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no mail to ${email} with a link to /${page} in ${mailDir} within ${timeoutMs} ms`);
    },
    close: () => Promise.resolve(),
  };
}
