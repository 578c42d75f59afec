import type pg from 'pg';
import { withTransaction, type TimeBudget } from '@latchkey/db';
import { searchIndex } from '@latchkey/jobs-contract';
import type { PostSearchEngine, PostSearchPageRequest, RankedPost } from './post-search-engine';
import type { ReadRouting } from './read-routing';

/**
 * Reads the full-text index the jobs worker keeps in schema `search`
 * (tsvector + GIN; title weighted above content). The schema is the
 * worker's: its `migrate` creates it, and the stack and the chart run every
 * unit's migrations before any unit serves, so it exists here.
 *
 * websearch_to_tsquery never fails on user input (quotes, `or`, `-word`
 * work as in web search engines), with the same configuration the worker
 * indexes with; it is written inline, not in a CTE, so that the planner
 * sees the query and picks the GIN index for rare words and a backward
 * scan of the newest posts for common ones.
 *
 * Ranking (ts_rank_cd) reads every document it ranks, so it ranks only the
 * newest `candidates` matches, once each (a materialized CTE), and only
 * the page's rows are joined with `posts`: a word in every post costs no
 * more than a rare one (docs/performance.md, "Search"). A post edited
 * between two pages may move, as with any ranking of live data. Joining
 * `posts` keeps a deleted post out of the results from the moment it is
 * deleted, before the worker's `delete_content` job removes its document,
 * and gives current titles.
 */
async function searchPostPage(db: pg.PoolClient, search: PostSearchPageRequest & { candidates: number }): Promise<RankedPost[]> {
  const { rows } = await db.query<RankedPost>(
    `WITH ranked AS MATERIALIZED (
       SELECT c.post_id, ts_rank_cd(c.document, websearch_to_tsquery($1::regconfig, $2)) AS rank
         FROM (SELECT d.post_id, d.document
                 FROM ${searchIndex.postDocuments} d
                WHERE d.document @@ websearch_to_tsquery($1::regconfig, $2) AND NOT d.deleted
                ORDER BY d.post_id DESC
                LIMIT $6) AS c
     ),
     page AS (
       SELECT r.post_id, r.rank
         FROM ranked r
        WHERE $3::real IS NULL OR (r.rank, r.post_id) < ($3::real, $4::uuid)
        ORDER BY r.rank DESC, r.post_id DESC
        LIMIT $5
     )
     SELECT p.id, p.author_id, a.handle AS author_handle, p.title, p.storage_key, p.version,
            p.created_at, p.updated_at, page.rank::text AS rank
       FROM page
       JOIN posts.posts p ON p.id = page.post_id
       JOIN posts.authors a ON a.id = p.author_id
      ORDER BY page.rank DESC, page.post_id DESC`,
    [
      searchIndex.textSearchConfig,
      search.query,
      search.after?.rank ?? null,
      search.after?.id ?? null,
      search.limit,
      search.candidates,
    ],
  );
  return rows;
}

/**
 * The embedded engine: the `search` schema of the database, on the search
 * pool (SEARCH_POOL_MAX), or on the read replica's when it has every write
 * answered so far (read-routing.ts).
 */
export class PostgresPostSearch implements PostSearchEngine {
  constructor(
    private readonly pools: { readonly searchPool: pg.Pool; readonly replicaSearchPool: pg.Pool | undefined; readonly reads: ReadRouting },
    /** SEARCH_RANK_CANDIDATES. */
    private readonly candidates: number,
  ) {}

  searchPage(request: PostSearchPageRequest, budget: TimeBudget): Promise<RankedPost[]> {
    const search = { ...request, candidates: this.candidates };
    return this.pools.reads.read(
      (replica) => searchPostPage(replica, search),
      () => withTransaction(this.pools.searchPool, budget, (db) => searchPostPage(db, search)),
      { timeoutMs: budget.deadline - Date.now(), replica: this.pools.replicaSearchPool },
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.pools.searchPool.end(), this.pools.replicaSearchPool?.end()]);
  }
}
