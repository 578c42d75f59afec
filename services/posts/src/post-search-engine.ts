import type { TimeBudget } from '@latchkey/db';
import type { RankKey } from './post-cursor';
import type { PostRecord } from './post-store';

/** A match and its rank, as a string that converts back to the identical number (post-cursor.ts). */
export type RankedPost = PostRecord & { rank: string };

export interface PostSearchPageRequest {
  /** `q` as the caller sent it, trimmed and valid (post-rules.ts). */
  readonly query: string;
  /** The (rank, id) after which this page starts; undefined for the first page. */
  readonly after: RankKey | undefined;
  readonly limit: number;
}

/**
 * Where SearchPosts finds its matches (SEARCH_ENGINE): PostgreSQL full
 * text in schema `search`, the embedded default (postgres-post-search.ts),
 * or an OpenSearch index, for a corpus PostgreSQL cannot rank in time
 * (opensearch-post-search.ts). Either answers live posts only, best match
 * first, ties broken by id, both descending, so that pages are keyset pages
 * over (rank, id). The jobs worker keeps the index of the same engine.
 */
export interface PostSearchEngine {
  searchPage(request: PostSearchPageRequest, budget: TimeBudget): Promise<RankedPost[]>;
  close(): Promise<void>;
}
