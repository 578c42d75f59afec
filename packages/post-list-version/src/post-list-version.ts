import type { RedisClient } from '@latchkey/db';
import { randomBytes } from 'node:crypto';

/**
 * The version of the post list, shared through Redis between the posts
 * service, which publishes a new one after every committed change to what
 * a list page shows (a post created, retitled or deleted, an author's
 * handle), and readers that keep a page (the gateway).
 *
 * Readers may keep a page as long as the version they read before fetching
 * it is still the current one. The posts service publishes before it
 * answers a write, so a reader that starts after the answer never serves
 * the page from before it.
 */
export function postListVersionKey(redisKeyPrefix: string): string {
  return `${redisKeyPrefix}posts:list-version`;
}

/**
 * Sets a new random version. Set, not incremented, so that a Redis that
 * restarts empty can never bring back a version a reader has already seen.
 */
export async function publishPostListVersion(redis: RedisClient, redisKeyPrefix: string): Promise<void> {
  await redis.set(postListVersionKey(redisKeyPrefix), randomBytes(12).toString('base64url'));
}

/** The current version; null while none is published (a new or emptied Redis). */
export function readPostListVersion(redis: RedisClient, redisKeyPrefix: string): Promise<string | null> {
  return redis.get(postListVersionKey(redisKeyPrefix));
}
