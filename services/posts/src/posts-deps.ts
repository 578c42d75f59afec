import type pg from 'pg';
import type { ContentStore } from '@latchkey/object-store';
import type { ContentCache } from './content-cache';
import type { PostListVersion } from './list-version';
import type { PostSearchEngine } from './post-search-engine';
import type { ReadRouting } from './read-routing';

/** What the post operations need, built once at start. */
export interface PostsDeps {
  readonly pool: pg.Pool;
  readonly content: ContentStore;
  /** Contents read lately, by storage key and version. */
  readonly contentCache: ContentCache;
  readonly listVersion: PostListVersion;
  /** Where reads run: the replica when it has every answered write (DATABASE_READ_URL), else `pool`. */
  readonly reads: ReadRouting;
  /** POSTS_MAX_CONTENT_BYTES. */
  readonly maxContentBytes: number;
  readonly search: PostSearchSettings;
}

/** Where and how far searches may go (docs/api.md, "Posts and search"). */
export interface PostSearchSettings {
  /** SEARCH_ENGINE's implementation. */
  readonly engine: PostSearchEngine;
  /** SEARCH_STATEMENT_TIMEOUT_MS: the most one search may take, whichever engine answers it. */
  readonly statementTimeoutMs: number;
}
