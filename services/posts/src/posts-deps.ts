import type pg from 'pg';
import type { ContentStore } from '@latchkey/object-store';
import type { PostListVersion } from './list-version';
import type { ReadRouting } from './read-routing';

/** What the post operations need, built once at start. */
export interface PostsDeps {
  readonly pool: pg.Pool;
  readonly content: ContentStore;
  readonly listVersion: PostListVersion;
  /** Where reads run: the replica when it has every answered write (DATABASE_READ_URL), else `pool`. */
  readonly reads: ReadRouting;
  /** POSTS_MAX_CONTENT_BYTES. */
  readonly maxContentBytes: number;
  readonly search: PostSearchSettings;
}

/** Where and how far searches may go (docs/api.md, "Posts and search"). */
export interface PostSearchSettings {
  /** The search pool, SEARCH_POOL_MAX connections. */
  readonly pool: pg.Pool;
  /** The search pool on the read replica, when DATABASE_READ_URL names one. */
  readonly replicaPool: pg.Pool | undefined;
  readonly reads: ReadRouting;
  readonly statementTimeoutMs: number;
  readonly rankCandidates: number;
}
