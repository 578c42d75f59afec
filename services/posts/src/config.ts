import { z } from 'zod';
import { backingServices, env, grpcServiceVariables, loadConfig, processVariables } from '@latchkey/config';

/**
 * The largest POSTS_MAX_CONTENT_BYTES allowed. The gateway forwards content
 * up to twice the limit (API.md part 1: content just over the limit must
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
    DATABASE_URL: backingServices.DATABASE_URL,
    DATABASE_POOL_MAX: env.int(10, 1, 200),
    NATS_URL: backingServices.NATS_URL,
    NATS_SUBJECT_PREFIX: backingServices.NATS_SUBJECT_PREFIX,
    /** Unset for AWS itself; set for an S3-compatible store. */
    S3_ENDPOINT: env.url(['http', 'https']).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_BUCKET: z.string().min(3).default('latchkey-posts'),
    /** Both or neither; neither uses the SDK's default chain (instance or pod role). */
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need. */
    S3_FORCE_PATH_STYLE: env.bool(false),
    POSTS_MAX_CONTENT_BYTES: env.int(1_048_576, 1, MAX_CONTENT_LIMIT_BYTES),
  })
  .refine((config) => (config.S3_ACCESS_KEY_ID === undefined) === (config.S3_SECRET_ACCESS_KEY === undefined), {
    path: ['S3_SECRET_ACCESS_KEY'],
    message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together',
  });

export type PostsConfig = z.output<typeof configSchema>;

export function loadPostsConfig(environment: Record<string, string | undefined> = process.env): PostsConfig {
  return loadConfig(configSchema, environment);
}
