import { summarizeLatencies, type LatencySummary } from './latency-stats';
import type { LoadJob, LoadResult } from './load-messages';
import { corpusLikePosts } from './search-corpus';
import type { Seed } from './seed';

/** Searches while posts are written (issue 35): what a reader gets while the index changes under it. */
export interface SearchUnderWrites {
  /** The schedule's length; the rates below are over it. */
  readonly durationSeconds: number;
  /** Searches and creates sent per second. */
  readonly searchRate: number;
  readonly createRate: number;
  /** Searches answered 200. */
  readonly searched: number;
  /** Every answered search, whatever its status. */
  readonly latency: LatencySummary;
  /** Non-2xx answers, socket errors and timeouts of the searches. */
  readonly searchErrors: number;
  /** Posts created (201). */
  readonly created: number;
  readonly createErrors: number;
  /** Answers by status (and `timeout`, `socket error`), of each side. */
  readonly searchStatusCodes: Readonly<Record<string, number>>;
  readonly createStatusCodes: Readonly<Record<string, number>>;
}

export interface SearchUnderWritesContext {
  readonly gatewayUrl: string;
  readonly seed: Seed;
  readonly durationSeconds: number;
  readonly searchRate: number;
  readonly createRate: number;
  readonly searchPaths: readonly string[];
  /** Runs a job on the load worker, so that nothing measured shares the bench's event loop. */
  readonly load: (job: Omit<LoadJob, 'type' | 'id'>) => Promise<LoadResult>;
}

/**
 * The searches in turn at a fixed rate, open-loop, while the seeded
 * accounts create posts like the corpus's through the API at theirs.
 */
export async function measureSearchUnderWrites(context: SearchUnderWritesContext): Promise<SearchUnderWrites> {
  const posts = corpusLikePosts(context.seed.users.length);
  const writes = context.seed.users.map((user, index) => ({
    method: 'POST' as const,
    path: '/v0/posts',
    headers: { 'content-type': 'application/json', cookie: `session_id=${user.cookie}` },
    body: JSON.stringify(posts[index]),
  }));
  const result = await context.load({
    url: context.gatewayUrl,
    connections: 1,
    durationSeconds: context.durationSeconds,
    requests: context.searchPaths.map((path) => ({ method: 'GET', path, headers: {} })),
    openLoop: { rate: context.searchRate, writes, writeRate: context.createRate },
  });
  if (!result.writes) throw new Error('the load worker answered no writes for an open-loop job');
  return {
    durationSeconds: result.durationSeconds,
    searchRate: context.searchRate,
    createRate: context.createRate,
    searched: Object.entries(result.statusCodes).reduce((sum, [status, count]) => (status === '200' ? sum + count : sum), 0),
    latency: summarizeLatencies(result.latenciesMs),
    searchErrors: result.non2xx + result.socketErrors,
    created: result.writes.statusCodes['201'] ?? 0,
    createErrors: result.writes.failed,
    searchStatusCodes: result.statusCodes,
    createStatusCodes: result.writes.statusCodes,
  };
}
