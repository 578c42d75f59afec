import { z } from 'zod';

/** IPC between the bench and the peer's server process (better-auth-server.ts). */

export const peerServerConfigSchema = z.object({
  type: z.literal('start'),
  /** The bench's database; the peer keeps its tables in a schema of its own there. */
  databaseUrl: z.string().min(1),
  /** The schema the peer migrates and uses (search_path), dropped with the bench's database. */
  schema: z.string().regex(/^[a-z_][a-z0-9_]*$/),
  redisUrl: z.string().min(1),
  /** Prefix of every key the peer writes to Redis, inside the bench's prefix so that the clean-up finds them. */
  redisKeyPrefix: z.string(),
  /** The identity service's Argon2id parameters, for the peer's hasher. */
  argon2: z.object({
    memoryKiB: z.number().int().positive(),
    timeCost: z.number().int().positive(),
    parallelism: z.number().int().positive(),
  }),
  /** The posts service's pool size, as the stack's units have. */
  databasePoolMax: z.number().int().positive(),
});
export type PeerServerConfig = z.infer<typeof peerServerConfigSchema>;

export const peerServerReadySchema = z.object({ type: z.literal('ready'), port: z.number().int().positive() });
