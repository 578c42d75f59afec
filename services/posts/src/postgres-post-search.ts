import type pg from 'pg';
import { withTransaction, type TimeBudget } from '@latchkey/db';
import { searchIndex } from '@latchkey/jobs-contract';
import type { PostSearchEngine, PostSearchPageRequest, RankedPost } from './post-search-engine';
import type { ReadRouting } from './read-routing';

/** How many posts one search ranks at most. */
export interface SearchBounds {
  /** SEARCH_RANK_CANDIDATES: the newest matches. */
  readonly candidates: number;
  /** SEARCH_RANK_CHAMPIONS: the strongest posts of the query's words, shared among them. */
  readonly champions: number;
}

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
 * Ranking (ts_rank_cd) reads every document it ranks, so it ranks a
 * bounded set of candidates, once each (a materialized CTE): the newest
 * `candidates` matches, and the champions of the query's words (the
 * posts in which a word weighs most, `search.post_term_champions`), about
 * `champions` in all, shared among the words. The newest matches make
 * fresh posts findable; the champions make an old post that is about the
 * query findable, which the newest matches of a common word never reach
 * (docs/performance.md, "Search"). Only the page's rows are joined with
 * `posts`: a word in every post costs no more than a rare one. A post
 * edited between two pages may move, as with any ranking of live data.
 * Joining `posts` keeps a deleted post out of the results from the moment
 * it is deleted, before the worker's `delete_content` job removes its
 * document, and gives current titles.
 */
async function searchPostPage(db: pg.PoolClient, search: PostSearchPageRequest & SearchBounds): Promise<RankedPost[]> {
  const { rows } = await db.query<RankedPost>(
    `WITH newest AS MATERIALIZED (
       SELECT d.post_id, d.document
         FROM ${searchIndex.postDocuments} d
        WHERE d.document @@ websearch_to_tsquery($1::regconfig, $2) AND NOT d.deleted
        ORDER BY d.post_id DESC
        LIMIT $6
     ),
     words AS (
       SELECT w.lexeme FROM unnest(tsvector_to_array(to_tsvector($1::regconfig, $2))) AS w (lexeme)
     ),
     champions AS (
       SELECT DISTINCT c.post_id
         FROM words
        CROSS JOIN LATERAL (
          SELECT t.post_id
            FROM ${searchIndex.postTermChampions} t
           WHERE t.lexeme = words.lexeme
           ORDER BY t.impact DESC, t.post_id DESC
           LIMIT ceil($7::numeric / (SELECT count(*) FROM words))::int
        ) AS c
     ),
     ranked AS MATERIALIZED (
       SELECT c.post_id, ts_rank_cd(c.document, websearch_to_tsquery($1::regconfig, $2)) AS rank
         FROM (SELECT n.post_id, n.document FROM newest n
               UNION ALL
               SELECT d.post_id, d.document
                 FROM champions
                 JOIN ${searchIndex.postDocuments} d ON d.post_id = champions.post_id
                WHERE d.document @@ websearch_to_tsquery($1::regconfig, $2) AND NOT d.deleted
                  AND d.post_id NOT IN (SELECT post_id FROM newest)) AS c
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
      search.champions,
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
    private readonly bounds: SearchBounds,
  ) {}

  searchPage(request: PostSearchPageRequest, budget: TimeBudget): Promise<RankedPost[]> {
    const search = { ...request, ...this.bounds };
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
