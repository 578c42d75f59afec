import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { summarizeLatencies, type LatencySummary } from './latency-stats';
import type { RelevanceProbe } from './search-corpus';

/** What search answers a reader on its own, apart from how many searches a second it serves. */
export interface SearchQuality {
  /** Each costliest query alone, one after the other through the gateway: the time of the query itself, no queueing. */
  readonly sequential: LatencySummary;
  readonly perQuery: readonly { readonly query: string; readonly latency: LatencySummary }[];
  /**
   * For each query whose best match is the corpus's oldest post: where that
   * post is on the first page (1 = first), or null when it is not there.
   */
  readonly relevance: readonly { readonly query: string; readonly position: number | null }[];
}

const FIRST_PAGE = 20;
const pageSchema = z.object({ items: z.array(z.object({ id: z.string() })) });

async function searchPage(gatewayUrl: string, query: string): Promise<string[]> {
  const response = await fetch(`${gatewayUrl}/v0/search/posts?limit=${FIRST_PAGE}&q=${encodeURIComponent(query)}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`search for "${query}": ${response.status} ${text.slice(0, 300)}`);
  return pageSchema.parse(JSON.parse(text)).items.map((item) => item.id);
}

/**
 * Runs every costly query `repeats` times in turn, one request at a time,
 * and looks for each planted old best match on its query's first page.
 */
export async function measureSearchQuality(
  gatewayUrl: string,
  costlyQueries: readonly string[],
  probes: readonly RelevanceProbe[],
  repeats: number,
  signal?: AbortSignal,
): Promise<SearchQuality> {
  const times = new Map<string, number[]>(costlyQueries.map((query) => [query, []]));
  for (let round = 0; round < repeats; round += 1) {
    for (const query of costlyQueries) {
      signal?.throwIfAborted();
      const started = performance.now();
      await searchPage(gatewayUrl, query);
      times.get(query)?.push(performance.now() - started);
    }
  }
  const relevance = [];
  for (const probe of probes) {
    const ids = await searchPage(gatewayUrl, probe.query);
    const index = ids.indexOf(probe.postId);
    relevance.push({ query: probe.query, position: index < 0 ? null : index + 1 });
  }
  return {
    sequential: summarizeLatencies([...times.values()].flat()),
    perQuery: [...times].map(([query, values]) => ({ query, latency: summarizeLatencies(values) })),
    relevance,
  };
}
