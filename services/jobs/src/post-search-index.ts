import type pg from 'pg';
import type { JobOutcome } from './job-consumer';
import { checkIndexJobStale, purgeTombstones, upsertPostDocument, writeTombstone } from './search-index';

/** One version of a post, as an index job brings it. */
export interface PostDocumentVersion {
  readonly postId: string;
  readonly authorId: string;
  readonly title: string;
  readonly content: string;
  readonly version: number;
}

/**
 * The index SearchPosts reads, in the engine SEARCH_ENGINE names: PostgreSQL
 * (search-index.ts, the default) or OpenSearch (opensearch-post-index.ts).
 * Both keep the same rules: a version is written only over an older one, a
 * tombstone is never replaced, and tombstones go after
 * TOMBSTONE_RETENTION_HOURS.
 */
export interface PostSearchIndex {
  /** 'duplicate' or 'superseded' when an index job of `version` need not run, before any content is read. */
  staleOutcome(postId: string, version: number): Promise<JobOutcome | undefined>;
  upsert(document: PostDocumentVersion): Promise<JobOutcome>;
  /** Takes the post out of search for good; idempotent. */
  tombstone(postId: string, version: number): Promise<void>;
  /** Deletes tombstones older than the retention; answers how many went. */
  purgeTombstones(): Promise<number>;
}

/** SEARCH_ENGINE=postgres: schema `search` of the worker's database. */
export function postgresPostSearchIndex(pool: pg.Pool): PostSearchIndex {
  return {
    staleOutcome: (postId, version) => checkIndexJobStale(pool, postId, version),
    upsert: (document) => upsertPostDocument(pool, document),
    tombstone: (postId, version) => writeTombstone(pool, postId, version),
    purgeTombstones: () => purgeTombstones(pool),
  };
}
