import { generateKeyPairSync, sign } from 'node:crypto';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Server, ServerCredentials, type handleUnaryCall } from '@grpc/grpc-js';
import { sessionsV1 } from '@latchkey/contracts';
import { hashOpaqueToken } from '@latchkey/opaque-token';
import { sessionKey } from '@latchkey/session-keys';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { bareServerConfigSchema, type BareServerConfig } from './baseline-messages';

/**
 * The baseline of the read scenarios: a bare Fastify server, in its own
 * process, doing only the work no implementation of the route can skip.
 *
 * - `GET /me`: one Redis GET of the session key the gateway reads
 *   (`<prefix>session:<sha256 of the cookie>`), since a session must be looked up;
 *   the same key, so the same value size.
 * - `POST /token`: that Redis GET and one Ed25519 signature over a JWT of the
 *   gateway's claims, the least a service token needs.
 * - gRPC `sessions.v1.SessionsService/IntrospectSession` (on `grpcPort`): one
 *   Redis GET of the token's session key, answered `active` without decoding it.
 * - `GET /posts/:id`: the posts service's primary-key read (with the author
 *   join) and one S3 GET of the content, from the same PostgreSQL and S3 store.
 * - `GET /posts`: the posts service's keyset query for the first page.
 *
 * No validation, logging, metrics or problem details: that is the point.
 */

/** The columns and join of services/posts/src/post-store.ts, schema-qualified. */
const COLUMNS = `p.id, p.author_id, a.handle AS author_handle, p.title, p.storage_key, p.version, p.created_at, p.updated_at`;
const FIND_POST = `SELECT ${COLUMNS} FROM posts.posts p JOIN posts.authors a ON a.id = p.author_id WHERE p.id = $1`;
/** listPostPage's query text, with the same (null) cursor and author parameters the first page gets. */
const LIST_POSTS = `SELECT ${COLUMNS} FROM posts.posts p JOIN posts.authors a ON a.id = p.author_id
      WHERE ($1::uuid IS NULL OR p.id < $1::uuid)
        AND ($2::uuid IS NULL OR p.author_id = $2::uuid)
      ORDER BY p.id DESC
      LIMIT $3`;
const PAGE_SIZE = 20;
const SESSION_COOKIE = /(?:^|;\s*)session_id=([^;]*)/;

interface PostRow {
  id: string;
  author_id: string;
  author_handle: string;
  title: string;
  storage_key: string;
  created_at: Date;
  updated_at: Date;
}

const summary = (row: PostRow) => ({
  id: row.id,
  author: { id: row.author_id, handle: row.author_handle },
  title: row.title,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export interface BareServer {
  readonly port: number;
  readonly grpcPort: number;
  close(): Promise<void>;
}

export async function startBareServer(config: BareServerConfig): Promise<BareServer> {
  const redis = new Redis(config.redisUrl);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.databasePoolMax });
  // The posts service's S3 settings (packages/object-store/src/s3-client.ts), so both clients do the same work.
  const s3 = new S3Client({
    region: config.s3.region,
    endpoint: config.s3.endpoint,
    forcePathStyle: config.s3.forcePathStyle,
    credentials: { accessKeyId: config.s3.accessKeyId, secretAccessKey: config.s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const app = Fastify({ logger: false });

  const sessionOf = (token: string): string => sessionKey(config.redisKeyPrefix, hashOpaqueToken(token));
  const cookieOf = (header: string | undefined): string => SESSION_COOKIE.exec(header ?? '')?.[1] ?? '';

  app.get('/me', async (request, reply) => {
    const raw = await redis.get(sessionOf(cookieOf(request.headers.cookie)));
    if (raw === null) return reply.code(401).send({ status: 401 });
    return { session: raw.length };
  });

  const { privateKey } = generateKeyPairSync('ed25519');
  const tokenHeader = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: 'bench', typ: 'JWT' })).toString('base64url');
  app.post('/token', async (request, reply) => {
    const raw = await redis.get(sessionOf(cookieOf(request.headers.cookie)));
    if (raw === null) return reply.code(401).send({ status: 401 });
    const issuedAt = Math.floor(Date.now() / 1000);
    // The claims of gateway/src/tokens/service-tokens.ts, with values of their usual sizes.
    const claims = {
      sid: 'AAAAAAAAAAAAAAAAAAAAAA',
      auth_time: issuedAt,
      amr: ['pwd'],
      sub: '00000000-0000-7000-8000-000000000000',
      iss: 'http://localhost:8080',
      aud: 'latchkey',
      iat: issuedAt,
      exp: issuedAt + 300,
    };
    const input = `${tokenHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign(null, Buffer.from(input), privateKey).toString('base64url');
    return { token: `${input}.${signature}`, expires_at: new Date(claims.exp * 1000).toISOString() };
  });

  app.get<{ Params: { id: string } }>('/posts/:id', async (request, reply) => {
    const { rows } = await pool.query<PostRow>(FIND_POST, [request.params.id]);
    const row = rows[0];
    if (!row) return reply.code(404).send({ status: 404 });
    const object = await s3.send(new GetObjectCommand({ Bucket: config.s3.bucket, Key: row.storage_key }));
    const content = (await object.Body?.transformToString('utf-8')) ?? '';
    return { ...summary(row), content };
  });

  app.get('/posts', async () => {
    const { rows } = await pool.query<PostRow>(LIST_POSTS, [null, null, PAGE_SIZE + 1]);
    const items = rows.slice(0, PAGE_SIZE).map(summary);
    return { items, next_cursor: rows.length > PAGE_SIZE ? (items[items.length - 1]?.id ?? null) : null };
  });

  const introspectSession: handleUnaryCall<sessionsV1.IntrospectSessionRequest, sessionsV1.IntrospectSessionResponse> = (
    call,
    callback,
  ) => {
    redis.get(sessionOf(call.request.token)).then(
      (raw) => callback(null, { active: raw !== null, session: undefined }),
      (error: Error) => callback(error),
    );
  };
  const grpc = new Server();
  grpc.addService({ introspectSession: sessionsV1.SessionsServiceService.introspectSession }, { introspectSession });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    grpcPort,
    async close(): Promise<void> {
      await new Promise<void>((resolve) => grpc.tryShutdown(() => resolve()));
      await app.close();
      await redis.quit().catch(() => undefined);
      await pool.end();
      s3.destroy();
    },
  };
}

if (require.main === module) {
  process.once('message', (message: unknown) => {
    void (async () => {
      const server = await startBareServer(bareServerConfigSchema.parse(message));
      process.once('SIGTERM', () => void server.close().finally(() => process.exit(0)));
      process.send?.({ type: 'ready', port: server.port, grpcPort: server.grpcPort });
    })().catch((error: unknown) => {
      process.stderr.write(`bare server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
  });
}
