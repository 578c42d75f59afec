/**
 * The Redis key under which the posts service publishes the version of its
 * post list: a new random value after every committed change to what a
 * list page shows (a post created, retitled or deleted, an author's handle).
 * The value is set, not incremented, so that a Redis that restarts empty
 * can never bring back a version a reader has already seen.
 *
 * Readers may keep a page as long as the version they read before fetching
 * it is still the current one. The posts service sets the version before it
 * answers a write, so a reader that starts after the answer never serves
 * the page from before it.
 */
export function postListVersionKey(redisKeyPrefix: string): string {
  return `${redisKeyPrefix}posts:list-version`;
}
