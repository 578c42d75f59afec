import type pg from 'pg';
import type { CallContext } from '@latchkey/grpc-kit';
import type { ContentStore } from './content-store';
import type { PostListVersion } from './list-version';

/** What the post operations need, built once at start. */
export interface PostsDeps {
  readonly pool: pg.Pool;
  readonly content: ContentStore;
  readonly listVersion: PostListVersion;
  /** POSTS_MAX_CONTENT_BYTES. */
  readonly maxContentBytes: number;
}

/** The parts of a call an operation passes on: the request id to its jobs, the logger for what it must report. */
export type RequestScope = Pick<CallContext, 'requestId' | 'logger'>;
