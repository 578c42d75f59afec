import type pg from 'pg';
import type { TimeBudget } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import { isOpenSearchStatus, openSearchUnavailable, searchedFields, type OpenSearchClient } from '@latchkey/search-engine';
import type { PostSearchEngine, PostSearchPageRequest, RankedPost } from './post-search-engine';
import { findPosts } from './post-store';
import { parseWebSearch, type SearchTerm } from './web-search-query';

/**
 * Matches deleted since their document was written (the delete_content job
 * has not run yet) are dropped when the page's rows are read; asking for a
 * few more than the page keeps such a page full.
 */
const DELETED_SLACK = 10;

/**
 * A word matches in the title or the content (cross_fields: both fields as
 * one text, as the PostgreSQL document is); a phrase within one of them. A
 * term that analysis leaves without words (stop words only) matches
 * nothing, so that, as with websearch_to_tsquery, `the` finds nothing.
 */
function termClause(term: Pick<SearchTerm, 'text' | 'phrase'>): Record<string, unknown> {
  return {
    multi_match: term.phrase
      ? { query: term.text, type: 'phrase', fields: searchedFields }
      : { query: term.text, type: 'cross_fields', operator: 'and', fields: searchedFields },
  };
}

/** The bool query of `q` (web-search-query.ts), live documents only. */
export function openSearchQuery(query: string): Record<string, unknown> {
  const must: Record<string, unknown>[] = [];
  const mustNot: Record<string, unknown>[] = [];
  const words: string[] = [];
  for (const group of parseWebSearch(query)) {
    const [only] = group;
    if (group.length === 1 && only) {
      // The required words go in one clause, so that stop words among them drop out as in PostgreSQL.
      if (!only.phrase && !only.excluded) words.push(only.text);
      else (only.excluded ? mustNot : must).push(termClause(only));
      continue;
    }
    const should = group.map((term) => (term.excluded ? { bool: { must_not: [termClause(term)] } } : termClause(term)));
    must.push({ bool: { should, minimum_should_match: 1 } });
  }
  if (words.length > 0) must.unshift(termClause({ text: words.join(' '), phrase: false }));
  return { bool: { filter: [{ term: { deleted: false } }], must, must_not: mustNot } };
}

interface Match {
  readonly id: string;
  /** The cluster's score, the first sort value. */
  readonly score: number;
}

/**
 * SEARCH_ENGINE=opensearch: ranks with the cluster's BM25 over every
 * match, whatever its age, and reads the page's rows from `posts`, which
 * keeps a deleted post out from the moment it is deleted and gives current
 * titles. A missing index (the worker has not created it yet) is no match.
 */
export class OpenSearchPostSearch implements PostSearchEngine {
  constructor(
    private readonly client: OpenSearchClient,
    private readonly index: string,
    /** The search pool, for the page's rows. */
    private readonly pool: pg.Pool,
  ) {}

  async searchPage(request: PostSearchPageRequest, budget: TimeBudget): Promise<RankedPost[]> {
    const hits = await this.matches(request, budget);
    if (hits.length === 0) return [];
    budget.signal.throwIfAborted();
    const rows = await findPosts(this.pool, hits.map((hit) => hit.id));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const page: RankedPost[] = [];
    for (const hit of hits) {
      const row = byId.get(hit.id);
      if (row) page.push({ ...row, rank: String(hit.score) });
      if (page.length === request.limit) break;
    }
    return page;
  }

  private async matches(request: PostSearchPageRequest, budget: TimeBudget): Promise<Match[]> {
    budget.signal.throwIfAborted();
    const pending = this.client.search(
      {
        index: this.index,
        body: {
          size: request.limit + DELETED_SLACK,
          track_total_hits: false,
          _source: false,
          query: openSearchQuery(request.query),
          sort: [{ _score: 'desc' }, { post_id: 'desc' }],
          ...(request.after ? { search_after: [Number(request.after.rank), request.after.id] } : {}),
        },
      },
      { requestTimeout: Math.max(1, budget.deadline - Date.now()) },
    );
    const abort = (): void => pending.abort();
    budget.signal.addEventListener('abort', abort, { once: true });
    try {
      const response = await pending;
      return response.body.hits.hits.flatMap((hit) => (hit._id === undefined ? [] : [{ id: hit._id, score: Number(hit.sort?.[0]) }]));
    } catch (error) {
      if (isOpenSearchStatus(error, 404)) return [];
      if (budget.signal.aborted) throw budget.signal.reason instanceof AppError ? budget.signal.reason : openSearchUnavailable(error, 'search posts');
      throw openSearchUnavailable(error, 'search posts');
    } finally {
      budget.signal.removeEventListener('abort', abort);
    }
  }

  /** Closes the client and the search pool, which the engine owns as the PostgreSQL one does. */
  async close(): Promise<void> {
    await this.client.close();
    await this.pool.end();
  }
}
