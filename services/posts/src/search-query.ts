import type { TimeBudget } from '@latchkey/db';
import { decodeRankCursor, encodeRankCursor, toPage } from './post-cursor';
import { assertValid, checkPageSize, checkSearchQuery, pageSize } from './post-rules';
import type { PostSearchSettings } from './posts-deps';
import type { PostRecord } from './post-store';

/**
 * One page of posts matching `query`, best match first, from the
 * configured engine (post-search-engine.ts). It runs under the shorter of
 * SEARCH_STATEMENT_TIMEOUT_MS and the caller's remaining time; a search cut
 * off by it is a 503 like any other dependency that could not answer in time.
 */
export async function searchPosts(
  settings: PostSearchSettings,
  request: { query: string; limit?: number | undefined; cursor: string },
  budget: TimeBudget,
): Promise<{ items: PostRecord[]; nextCursor: string }> {
  assertValid(checkSearchQuery(request.query), checkPageSize(request.limit));
  const limit = pageSize(request.limit);
  const after = decodeRankCursor(request.cursor);
  const searchBudget = {
    deadline: Math.min(budget.deadline, Date.now() + settings.statementTimeoutMs),
    signal: budget.signal,
  };
  const rows = await settings.engine.searchPage({ query: request.query.trim(), after, limit: limit + 1 }, searchBudget);
  return toPage(rows, limit, (post) => encodeRankCursor({ rank: post.rank, id: post.id }));
}
