import type pg from 'pg';
import { postsV1 } from '@latchkey/contracts';
import { createPool, settledConnection } from '@latchkey/db';
import { startGrpcEndpoints } from '@latchkey/grpc-kit';
import { openServiceStores } from '@latchkey/outbox';
import type { Running } from '@latchkey/runtime';
import type { Logger } from '@latchkey/telemetry';
import type { PostsConfig } from './config';
import { ContentStore, createS3Client } from '@latchkey/object-store';
import { ContentCache } from './content-cache';
import { postsHandlers } from './handlers';
import { PostListVersion } from './list-version';
import { ReadRouting } from './read-routing';
import { methodCallersOf } from '@latchkey/units';
import { createOpenSearchClient } from '@latchkey/search-engine';
import { OpenSearchPostSearch } from './opensearch-post-search';
import type { PostSearchEngine } from './post-search-engine';
import { PostgresPostSearch } from './postgres-post-search';

export const POSTS_SCHEMA = 'posts';

/** SEARCH_ENGINE's implementation; it owns the search pools and closes them. */
function searchEngine(
  config: PostsConfig,
  pools: { readonly searchPool: pg.Pool; readonly replicaSearchPool: pg.Pool | undefined; readonly reads: ReadRouting },
): PostSearchEngine {
  if (config.SEARCH_ENGINE === 'postgres') return new PostgresPostSearch(pools, { candidates: config.SEARCH_RANK_CANDIDATES, champions: config.SEARCH_RANK_CHAMPIONS });
  const client = createOpenSearchClient(config, { requestTimeoutMs: config.SEARCH_STATEMENT_TIMEOUT_MS });
  return new OpenSearchPostSearch(client, config.OPENSEARCH_INDEX, pools.searchPool);
}

/**
 * Serves posts.v1 over gRPC and relays its outbox (index and
 * delete_content jobs) to JetStream. The broker is connected in the
 * background: while it is away, posts are still created, edited and
 * deleted, and their jobs wait in the outbox.
 */
export async function startPostsService(config: PostsConfig, logger: Logger): Promise<Running> {
  // Only list versions go to Redis: a write must not wait for it, nor fail without it.
  const stores = openServiceStores(config, { unit: 'posts', schema: POSTS_SCHEMA, logger, redisFailsFast: true });
  const { pool, redis } = stores;
  const searchPool = createPool({
    connectionString: config.DATABASE_URL,
    schema: POSTS_SCHEMA,
    max: config.SEARCH_POOL_MAX,
    applicationName: 'latchkey-posts-search',
    onIdleError: (error) => logger.warn({ err: error }, 'idle search connection failed'),
  });
  // Reads, lists and searches on the replica, each with pools the size of the primary's.
  const replicaUrl = config.DATABASE_READ_URL;
  const replicaPool =
    replicaUrl === undefined
      ? undefined
      : createPool({
          connectionString: replicaUrl,
          schema: POSTS_SCHEMA,
          max: config.DATABASE_POOL_MAX,
          applicationName: 'latchkey-posts-read',
          onIdleError: (error) => logger.warn({ err: error }, 'idle replica connection failed'),
        });
  const replicaSearchPool =
    replicaUrl === undefined
      ? undefined
      : createPool({
          connectionString: replicaUrl,
          schema: POSTS_SCHEMA,
          max: config.SEARCH_POOL_MAX,
          applicationName: 'latchkey-posts-search-read',
          onIdleError: (error) => logger.warn({ err: error }, 'idle replica search connection failed'),
        });
  // A create waits on the store: one that does not answer must become a 503 in seconds.
  const s3 = createS3Client(config, { connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000, maxAttempts: 2 });
  // The first writes would otherwise miss their list version while the connection is being made.
  await settledConnection(redis, 3_000);
  const reads = new ReadRouting(pool, replicaPool, redis, config.REDIS_KEY_PREFIX, logger);
  const deps = {
    pool,
    content: new ContentStore({ client: s3, bucket: config.S3_BUCKET, logger }),
    contentCache: new ContentCache(config.POSTS_CONTENT_CACHE_BYTES),
    listVersion: new PostListVersion(redis, config.REDIS_KEY_PREFIX, logger),
    reads,
    maxContentBytes: config.POSTS_MAX_CONTENT_BYTES,
    search: { engine: searchEngine(config, { searchPool, replicaSearchPool, reads }), statementTimeoutMs: config.SEARCH_STATEMENT_TIMEOUT_MS },
  };

  const endpoints = await startGrpcEndpoints({
    unit: 'posts',
    callers: methodCallersOf('posts.v1.PostsService'),
    settings: config,
    logger,
    service: { name: 'posts.v1.PostsService', definition: postsV1.PostsServiceService, handlers: postsHandlers(deps) },
    // Ready while PostgreSQL answers. The object store is left out on purpose:
    // listing and searching work without it, and a store outage would
    // otherwise take every replica out of the balancer at once.
    ready: stores.databaseAnswers,
  });

  return {
    readyFields: { grpc_port: endpoints.grpcPort, metrics_port: endpoints.metricsPort },
    async stop() {
      await endpoints.stop();
      s3.destroy();
      await Promise.all([stores.close(), replicaPool?.end(), deps.search.engine.close()]);
    },
  };
}
