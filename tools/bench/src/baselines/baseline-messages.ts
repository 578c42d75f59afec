import { z } from 'zod';
import { float64ArraySchema } from '../load-messages';

/** IPC between the bench and its baseline processes (bare-server.ts, argon2-rate.ts). */

export const bareServerConfigSchema = z.object({
  type: z.literal('start'),
  redisUrl: z.string().min(1),
  /** REDIS_KEY_PREFIX of the stack: the bare route reads the very keys the gateway reads. */
  redisKeyPrefix: z.string(),
  databaseUrl: z.string().min(1),
  /** The posts service's pool size (DATABASE_POOL_MAX, default 10), so both sides have as many connections. */
  databasePoolMax: z.number().int().positive(),
  s3: z.object({
    endpoint: z.string().min(1),
    region: z.string().min(1),
    bucket: z.string().min(1),
    accessKeyId: z.string().min(1),
    secretAccessKey: z.string().min(1),
    forcePathStyle: z.boolean(),
  }),
});
export type BareServerConfig = z.infer<typeof bareServerConfigSchema>;

export const bareServerReadySchema = z.object({
  type: z.literal('ready'),
  port: z.number().int().positive(),
  /** sessions.v1 IntrospectSession's floor. */
  grpcPort: z.number().int().positive(),
});

export const argon2JobSchema = z.object({
  type: z.literal('run'),
  id: z.number().int(),
  durationSeconds: z.number().positive(),
  /** Verifications in flight at once: the libuv thread pool's size, as the identity service has. */
  concurrency: z.number().int().positive(),
  memoryKiB: z.number().int().positive(),
  timeCost: z.number().int().positive(),
  parallelism: z.number().int().positive(),
});
export type Argon2Job = z.infer<typeof argon2JobSchema>;

export const argon2ResultSchema = z.object({
  type: z.literal('result'),
  id: z.number().int(),
  verifies: z.number().int(),
  durationSeconds: z.number(),
  latenciesMs: float64ArraySchema,
  cpuMs: z.number(),
  peakRssBytes: z.number(),
});
export type Argon2Result = z.infer<typeof argon2ResultSchema>;
