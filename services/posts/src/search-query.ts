import type pg from 'pg';
import { searchIndex } from '@latchkey/jobs-contract';
import { decodeRankCursor, encodeRankCursor, toPage, type RankKey } from './post-cursor';
import { assertValid, checkPageSize, checkSearchQuery, pageSize } from './post-rules';
import type { PostRecord } from './post-store';

/** A match and its rank, as PostgreSQL printed the `real` (see post-cursor.ts). */
type RankedPost = PostRecord & { rank: string };

/**
 * Reads the full-text index the jobs worker keeps in schema `search`
 * (tsvector + GIN; title weighted above content). The schema is the
 * worker's: its `migrate` creates it, and the stack and the chart run every
 * unit's migrations before any unit serves, so it exists here.
 *
 * websearch_to_tsquery never fails on user input (quotes, `or`, `-word`
 * work as in web search engines), with the same configuration the worker
 * indexes with. Ranking is ts_rank_cd; pages are keyset pages over
 * (rank, id), both descending, so a page starts exactly after the last row
 * of the one before. A post edited between two pages may move, as with
 * any ranking of live data. Joining `posts` keeps a deleted post out of
 * the results from the moment it is deleted, before the worker's
 * `delete_content` job removes its document, and gives current titles.
 */
async function searchPostPage(
  db: pg.Pool,
  search: { query: string; after: RankKey | undefined; limit: number },
): Promise<RankedPost[]> {
  const { rows } = await db.query<RankedPost>(
    `WITH matches AS (
       SELECT d.post_id, ts_rank_cd(d.document, q.query) AS rank
         FROM ${searchIndex.postDocuments} d, websearch_to_tsquery($1::regconfig, $2) AS q (query)
        WHERE d.document @@ q.query AND NOT d.deleted
     )
     SELECT p.id, p.author_id, a.handle AS author_handle, p.title, p.storage_key, p.version,
            p.created_at, p.updated_at, m.rank::text AS rank
       FROM matches m
       JOIN posts p ON p.id = m.post_id
       JOIN authors a ON a.id = p.author_id
      WHERE $3::real IS NULL OR (m.rank, m.post_id) < ($3::real, $4::uuid)
      ORDER BY m.rank DESC, m.post_id DESC
      LIMIT $5`,
    [searchIndex.textSearchConfig, search.query, search.after?.rank ?? null, search.after?.id ?? null, search.limit],
  );
  return rows;
}

/** One page of posts matching `query`, best match first. */
export async function searchPosts(
  pool: pg.Pool,
  request: { query: string; limit?: number | undefined; cursor: string },
): Promise<{ items: PostRecord[]; nextCursor: string }> {
  assertValid(checkSearchQuery(request.query), checkPageSize(request.limit));
  const limit = pageSize(request.limit);
  const rows = await searchPostPage(pool, {
    query: request.query.trim(),
    after: decodeRankCursor(request.cursor),
    limit: limit + 1,
  });
  return toPage(rows, limit, (post) => encodeRankCursor({ rank: post.rank, id: post.id }));
}
