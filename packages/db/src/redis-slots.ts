import type { RedisClient } from './redis-client';

/*
 * In a Redis Cluster a transaction, a script or a multi-key command must
 * name keys of one hash slot (CROSSSLOT otherwise). Records keyed by a
 * token's hash and the per-user index that lists them live in different
 * slots, since a request finds the record by the token alone (one GET on
 * the session check); what spans both is done as single-key commands, in
 * an order that a failure half-way leaves safe (docs/architecture.md,
 * "Redis keys"). ioredis writes concurrent commands back to back, so many
 * keys still cost about one round trip per node.
 */

/** The values of `keys`, in order; null for a key that is gone. */
export function getEach(redis: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
  return Promise.all(keys.map((key) => redis.get(key)));
}

/** Deletes `keys`, whichever slots they hash to; answers how many existed. */
export async function deleteEach(redis: RedisClient, keys: readonly string[]): Promise<number> {
  const deleted = await Promise.all(keys.map((key) => redis.del(key)));
  return deleted.reduce((sum, count) => sum + count, 0);
}
