import { deleteEach, getEach, type RedisClient } from '@latchkey/db';

/**
 * Where sessions live in Redis, shared by the gateway, which keeps them,
 * the jobs worker, which ends them when identity says an account's
 * credentials changed (docs/architecture.md, "Sessions"), and identity,
 * which ends those of an account an administrator disables.
 */
export function sessionKey(prefix: string, tokenHash: string): string {
  return `${prefix}session:${tokenHash}`;
}

/** A hash of a user's sessions: public id → token hash. */
export function userSessionsKey(prefix: string, userId: string): string {
  return `${prefix}user-sessions:${userId}`;
}

/**
 * The credential epoch a stored session was started under: the `k` field
 * of its JSON, 0 for sessions stored before it was kept.
 */
export function sessionEpochOf(raw: string): number {
  try {
    const epoch = (JSON.parse(raw) as { k?: unknown }).k;
    return typeof epoch === 'number' ? epoch : 0;
  } catch {
    return 0;
  }
}

/**
 * Ends the given sessions of `userId`: their records, then their index
 * entries. Records and index hash to different slots of a Redis Cluster,
 * so this is not one transaction; a failure between the two leaves index
 * entries of ended sessions, which listing prunes, never a live session
 * that the index has lost.
 */
export async function endSessions(
  redis: RedisClient,
  prefix: string,
  userId: string,
  sessions: readonly { readonly publicId: string; readonly tokenHash: string }[],
): Promise<void> {
  if (sessions.length === 0) return;
  await deleteEach(
    redis,
    sessions.map(({ tokenHash }) => sessionKey(prefix, tokenHash)),
  );
  await redis.hdel(userSessionsKey(prefix, userId), ...sessions.map(({ publicId }) => publicId));
}

/**
 * Ends every session of `userId` started under a credential epoch below
 * `epoch` (all of them for `Infinity`), and drops index entries of sessions
 * already gone; answers how many ended. A session started after the
 * change carries the new epoch and stays.
 */
export async function endSessionsBefore(redis: RedisClient, prefix: string, userId: string, epoch: number): Promise<number> {
  const index = await redis.hgetall(userSessionsKey(prefix, userId));
  const entries = Object.entries(index);
  if (entries.length === 0) return 0;
  const values = await getEach(
    redis,
    entries.map(([, tokenHash]) => sessionKey(prefix, tokenHash)),
  );
  const doomed = entries
    .map(([publicId, tokenHash], position) => ({ publicId, tokenHash, raw: values[position] ?? null }))
    .filter(({ raw }) => raw === null || sessionEpochOf(raw) < epoch);
  await endSessions(redis, prefix, userId, doomed);
  return doomed.filter(({ raw }) => raw !== null).length;
}
