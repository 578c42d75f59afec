import { z } from 'zod';
import { objectStoreVariables, s3CredentialsPaired, s3CredentialsProblem } from '@latchkey/object-store';
import { backingServices, databaseVariables, env, grpcServiceVariables, loadConfig, natsVariables, processVariables, redisModeProblems, redisVariables } from '@latchkey/config';
import { checkSearchEngineSettings, searchEngineVariables } from '@latchkey/search-engine';

/**
 * The largest POSTS_MAX_CONTENT_BYTES allowed. The gateway forwards content
 * up to twice the limit (docs/api.md, "Paths and bodies": content just over the limit must
 * reach the service and get a 400), and the gRPC server takes messages of
 * at most 8 MiB; gRPC clients read answers of at most 4 MiB by default.
 */
const MAX_CONTENT_LIMIT_BYTES = 3 * 1024 * 1024;

/** Everything the posts service reads from its environment. */
export const configSchema = z
  .object({
    ...processVariables,
    ...grpcServiceVariables,
    GRPC_PORT: env.port(50054),
    ...databaseVariables,
    /** A streaming replica for post reads, lists and search; an author still reads their own writes. */
    DATABASE_READ_URL: backingServices.DATABASE_READ_URL,
    DATABASE_POOL_MAX: env.int(10, 1, 200),
    ...natsVariables,
    /** Where the version of the post list is published for the gateways' page caches. */
    ...redisVariables,
    ...objectStoreVariables,
    POSTS_MAX_CONTENT_BYTES: env.int(1_048_576, 1, MAX_CONTENT_LIMIT_BYTES),
    /** Post contents kept in memory per replica, by size (content-cache.ts); 0 keeps none. */
    POSTS_CONTENT_CACHE_BYTES: env.int(16_777_216, 0, 1_073_741_824),
    /**
     * Searches run on connections of their own, so that a burst of costly
     * queries can hold neither the connections of writes and reads nor
     * the database for long.
     */
    SEARCH_POOL_MAX: env.int(4, 1, 100),
    /** The most one search may take, in PostgreSQL or in OpenSearch. */
    SEARCH_STATEMENT_TIMEOUT_MS: env.int(2_000, 10, 30_000),
    /** PostgreSQL search: how many of the newest matches it ranks; older matches of a broader query are not shown. */
    SEARCH_RANK_CANDIDATES: env.int(250, 1, 100_000),
    /** PostgreSQL search: how many of its words' strongest posts it ranks besides, shared among the words; 0 ranks the newest only. */
    SEARCH_RANK_CHAMPIONS: env.int(320, 0, 100_000),
    ...searchEngineVariables,
  })
  .refine(s3CredentialsPaired, s3CredentialsProblem)
  .superRefine(checkSearchEngineSettings)
  .superRefine(redisModeProblems);

export type PostsConfig = z.output<typeof configSchema>;

export function loadPostsConfig(environment: Record<string, string | undefined> = process.env): PostsConfig {
  return loadConfig(configSchema, environment);
}
