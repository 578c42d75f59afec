import type pg from 'pg';
import type { ContentStore } from '@latchkey/object-store';
import type { PostListVersion } from './list-version';

/** What the post operations need, built once at start. */
export interface PostsDeps {
  readonly pool: pg.Pool;
  readonly content: ContentStore;
  readonly listVersion: PostListVersion;
  /** POSTS_MAX_CONTENT_BYTES. */
  readonly maxContentBytes: number;
  readonly search: PostSearchSettings;
}

/** Where and how far searches may go (docs/api.md, "Posts and search"). */
export interface PostSearchSettings {
  /** The search pool, SEARCH_POOL_MAX connections. */
  readonly pool: pg.Pool;
  readonly statementTimeoutMs: number;
  readonly rankCandidates: number;
}
