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
}
