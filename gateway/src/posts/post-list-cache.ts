import type { RedisClient } from '@latchkey/db';
import { readPostListVersion } from '@latchkey/post-list-version';

/**
 * The longest a page is served from memory. It matters only when a posts
 * replica could not publish a new version (Redis away during a write): the
 * change then shows after this long instead of at once.
 */
export const MAX_PAGE_AGE_MS = 2_000;

/** How a request for the newest page was served. */
export type PostListCacheOutcome = 'hit' | 'miss' | 'bypassed';

interface KeptPage<Page> {
  /** The list version read before the page was fetched; null while none is published. */
  readonly version: string | null;
  readonly keptUntil: number;
  readonly page: Promise<Page>;
}

/**
 * The newest page of the post list (no cursor, no author), kept per page
 * size while the list version the posts service publishes in Redis is the
 * one read before the page was fetched. Every request still reads that
 * version, one Redis GET like the session check, so a page is never served
 * after a write to the list has been answered. Concurrent misses share one
 * fetch: a burst of readers costs the posts service one query.
 */
export class PostListCache<Page> {
  private readonly pages = new Map<number | undefined, KeptPage<Page>>();
  constructor(
    private readonly redis: RedisClient,
    private readonly redisKeyPrefix: string,
    private readonly options: { now?: () => number; onOutcome?: (outcome: PostListCacheOutcome) => void } = {},
  ) {}

  async newest(limit: number | undefined, fetch: () => Promise<Page>): Promise<Page> {
    let version: string | null;
    try {
      version = await readPostListVersion(this.redis, this.redisKeyPrefix);
    } catch {
      // Without the version no kept page can be trusted; the list itself does not need Redis.
      this.options.onOutcome?.('bypassed');
      return fetch();
    }
    const now = (this.options.now ?? Date.now)();
    const kept = this.pages.get(limit);
    if (kept && kept.version === version && kept.keptUntil > now) {
      this.options.onOutcome?.('hit');
      return kept.page;
    }

    this.options.onOutcome?.('miss');
    const entry: KeptPage<Page> = { version, keptUntil: now + MAX_PAGE_AGE_MS, page: fetch() };
    this.pages.set(limit, entry);
    entry.page.catch(() => {
      if (this.pages.get(limit) === entry) this.pages.delete(limit);
    });
    return entry.page;
  }
}
