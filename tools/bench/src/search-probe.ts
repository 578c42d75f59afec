import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { summarizeLatencies } from './latency-stats';
import type { SearchLatency, SearchProbe } from './load-messages';

/** docs/api.md: `q` is 1-200 characters. */
const MAX_QUERY_LENGTH = 200;
/** docs/api.md: `limit` is at most 100. */
const PAGE_LIMIT = 100;
/** docs/api.md, "Posts and search": a query has at most 16 words. */
const MAX_QUERY_WORDS = 16;

const searchPageSchema = z.object({ items: z.array(z.object({ title: z.string() })) });

/**
 * Words no other post has, one per created post. A letter-digit mix is a
 * `numword` to PostgreSQL's parser, which the english configuration keeps
 * as it is (no stemming), so searching for the word finds exactly its post.
 */
export class UniqueWords {
  private readonly prefix = `q7${randomBytes(4).toString('hex')}x`;
  private readonly pattern = new RegExp(`${this.prefix}[0-9a-z]+`);
  private counter = 0;

  next(): string {
    this.counter += 1;
    return `${this.prefix}${this.counter.toString(36)}`;
  }

  /** The word of this run in `text`, if any. */
  find(text: string): string | undefined {
    return this.pattern.exec(text)?.[0];
  }
}

/**
 * Queries that together look for every word, each within the length limit:
 * `w1 or w2 or …` is an OR to websearch_to_tsquery, so one search request
 * covers many posts and the probe adds little load of its own.
 */
export function searchQueries(words: readonly string[]): string[] {
  const queries: string[] = [];
  let current: string[] = [];
  let length = 0;
  for (const word of words) {
    const joinedLength = current.length === 0 ? word.length : length + ' or '.length + word.length;
    if (current.length > 0 && (joinedLength > MAX_QUERY_LENGTH || current.length >= MAX_QUERY_WORDS)) {
      queries.push(current.join(' or '));
      current = [word];
      length = word.length;
    } else {
      current.push(word);
      length = joinedLength;
    }
  }
  if (current.length > 0) queries.push(current.join(' or '));
  return queries;
}

/**
 * Measures, for each created post, the time from its 201 until search
 * returns it: the outbox relay, JetStream, the index job and the index
 * commit, end to end. Polling every `pollIntervalMs` adds up to that much
 * to each measurement.
 */
export class SearchProber {
  readonly words = new UniqueWords();
  private readonly createdAt = new Map<string, number>();
  private readonly latencies: number[] = [];
  private created = 0;
  private searches = 0;
  private loadFinished = false;
  private settleDeadline = Number.POSITIVE_INFINITY;
  private readonly done: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    private readonly settings: SearchProbe,
  ) {
    this.done = this.pollUntilSettled();
  }

  /** Called with each create's answer as it arrives. */
  recordCreate(status: number, body: string): void {
    if (status !== 201) return;
    const word = this.words.find(body);
    if (word === undefined) return;
    this.created += 1;
    this.createdAt.set(word, performance.now());
  }

  /** The load has ended: look for what is left until the settle timeout, then answer. */
  async finish(): Promise<SearchLatency> {
    this.loadFinished = true;
    this.settleDeadline = performance.now() + this.settings.settleTimeoutMs;
    await this.done;
    return {
      ...summarizeLatencies(this.latencies),
      created: this.created,
      notFound: this.createdAt.size,
      searches: this.searches,
    };
  }

  private async pollUntilSettled(): Promise<void> {
    while (!this.loadFinished || (this.createdAt.size > 0 && performance.now() < this.settleDeadline)) {
      await new Promise((resolve) => setTimeout(resolve, this.settings.pollIntervalMs));
      const queries = searchQueries([...this.createdAt.keys()]);
      await Promise.all(queries.map((query) => this.search(query)));
    }
  }

  private async search(query: string): Promise<void> {
    this.searches += 1;
    const url = `${this.baseUrl}/v0/search/posts?limit=${PAGE_LIMIT}&q=${encodeURIComponent(query)}`;
    let items: readonly { title: string }[];
    try {
      const response = await fetch(url);
      if (!response.ok) return;
      items = searchPageSchema.parse(await response.json()).items;
    } catch {
      // A failed poll is retried on the next tick; a post never found shows up as notFound.
      return;
    }
    const now = performance.now();
    for (const item of items) {
      const word = this.words.find(item.title);
      const createdAt = word === undefined ? undefined : this.createdAt.get(word);
      if (word === undefined || createdAt === undefined) continue;
      this.latencies.push(now - createdAt);
      this.createdAt.delete(word);
    }
  }
}
