import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { toNodeHandler } from 'better-auth/node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { peerServerConfigSchema, type PeerServerConfig } from './peer-messages';

/**
 * The peer of the bench: Better Auth (the version pinned in
 * tools/bench/package.json), as its documentation sets it up for Node: email
 * and password, sessions in Redis as its secondary storage, PostgreSQL for
 * accounts, its handler on node:http. It hashes with Argon2id through the same
 * argon2 package and parameters as the identity service, and its rate limits
 * are off, as the stack's are raised. It runs in its own process and migrates
 * its own schema, so it is measured like a deployment of it would be.
 */

export interface PeerServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startPeerServer(config: PeerServerConfig): Promise<PeerServer> {
  const admin = new pg.Client({ connectionString: config.databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${config.schema}`);
  } finally {
    await admin.end();
  }
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: config.databasePoolMax,
    options: `-c search_path=${config.schema}`,
  });
  const redis = new Redis(config.redisUrl);
  const key = (name: string): string => `${config.redisKeyPrefix}${name}`;
  const hashOptions = {
    type: argon2.argon2id,
    memoryCost: config.argon2.memoryKiB,
    timeCost: config.argon2.timeCost,
    parallelism: config.argon2.parallelism,
  } as const;

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseURL = `http://127.0.0.1:${port}`;

  const options: BetterAuthOptions = {
    baseURL,
    secret: randomBytes(32).toString('base64url'),
    database: pool,
    secondaryStorage: {
      get: (name: string) => redis.get(key(name)),
      getAndDelete: (name: string) => redis.getdel(key(name)),
      increment: async (name: string, ttl: number) => {
        const [[, count]] = (await redis.multi().incr(key(name)).expire(key(name), ttl, 'NX').exec()) as [[null, number]];
        return count;
      },
      set: (name: string, value: string, ttl?: number) =>
        ttl ? redis.set(key(name), value, 'EX', ttl) : redis.set(key(name), value),
      delete: async (name: string) => {
        await redis.del(key(name));
      },
    },
    emailAndPassword: {
      enabled: true,
      password: {
        hash: (password: string) => argon2.hash(password, hashOptions),
        verify: ({ hash, password }: { hash: string; password: string }) => argon2.verify(hash, password),
      },
    },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
  };
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  const auth = betterAuth(options);
  const handle = toNodeHandler(auth);
  server.on('request', (request, response) => void handle(request, response));

  return {
    port,
    async close(): Promise<void> {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redis.quit().catch(() => undefined);
      await pool.end();
    },
  };
}

if (require.main === module) {
  process.once('message', (message: unknown) => {
    void (async () => {
      const server = await startPeerServer(peerServerConfigSchema.parse(message));
      process.once('SIGTERM', () => void server.close().finally(() => process.exit(0)));
      process.send?.({ type: 'ready', port: server.port });
    })().catch((error: unknown) => {
      process.stderr.write(`peer server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
  });
}
