import { LRUCache } from 'lru-cache';
import type { PostRecord } from './post-store';

/** How long a kept content may be served for its version: bounds what an edit that wrote the store but failed to commit leaves behind. */
export const CONTENT_CACHE_TTL_MS = 60_000;

/**
 * Post contents kept in memory, so that a read of a popular post is one
 * primary-key read instead of a read and an object-store GET
 * (docs/architecture.md, "Posts, content and search"). An entry is found
 * by the post's storage key and version, which every edit raises: the row
 * is still read on every request, so an edit is seen at once and a deleted
 * post is gone at once, whichever replica kept what. Bounded by the bytes
 * kept (POSTS_CONTENT_CACHE_BYTES; 0 keeps nothing).
 */
export class ContentCache {
  private readonly entries: LRUCache<string, string> | undefined;

  constructor(maxBytes: number) {
    this.entries =
      maxBytes > 0
        ? new LRUCache<string, string>({
            maxSize: maxBytes,
            // JavaScript strings take two bytes a character at most; near enough for a bound.
            sizeCalculation: (content) => Math.max(1, content.length * 2),
            ttl: CONTENT_CACHE_TTL_MS,
          })
        : undefined;
  }

  get(post: Pick<PostRecord, 'storage_key' | 'version'>): string | undefined {
    return this.entries?.get(keyOf(post));
  }

  set(post: Pick<PostRecord, 'storage_key' | 'version'>, content: string): void {
    this.entries?.set(keyOf(post), content);
  }
}

function keyOf(post: Pick<PostRecord, 'storage_key' | 'version'>): string {
  return `${post.storage_key}\n${String(post.version)}`;
}
