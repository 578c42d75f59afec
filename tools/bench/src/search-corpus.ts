import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { uuidv7 } from 'uuidv7';

/**
 * The corpus of the `search` scenario: many posts of natural-looking text,
 * written straight into the posts tables and the search index. Going
 * through the API would take an hour at 100 000 posts and measure the
 * worker, not the search; the rows are the ones the posts service and
 * the index worker write (services/posts/migrations,
 * services/jobs/migrations/search), without stored content, which search
 * never reads.
 *
 * Word frequencies follow Zipf's law, as in real text: the commonest words
 * are in nearly every post. Those make the costliest queries: each matches
 * most of the corpus, and ranking reads every document it ranks.
 */

/** Syllables of made-up words that the english stemmer leaves alone. */
const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 't', 'v', 'z', 'br', 'dr', 'gl', 'pl', 'tr'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const VOCABULARY_SIZE = 5_000;
const BODY_WORDS = 150;
const TITLE_WORDS = 6;
const BATCH = 2_000;

/** The word of rank `rank` (0 = commonest): two syllables, distinct for every rank of the vocabulary. */
export function vocabularyWord(rank: number): string {
  const syllables = ONSETS.length * NUCLEI.length;
  const syllable = (index: number): string => `${ONSETS[index % ONSETS.length]}${NUCLEI[Math.floor(index / ONSETS.length)]}`;
  return `${syllable(rank % syllables)}${syllable(Math.floor(rank / syllables) % syllables)}`;
}

/** Draws word ranks with probability proportional to 1 / (rank + 1), from a seeded generator. */
class ZipfWords {
  private readonly cumulative: Float64Array;
  private state: number;

  constructor(seed: number) {
    this.cumulative = new Float64Array(VOCABULARY_SIZE);
    let sum = 0;
    for (let rank = 0; rank < VOCABULARY_SIZE; rank += 1) {
      sum += 1 / (rank + 1);
      this.cumulative[rank] = sum;
    }
    this.state = seed >>> 0 || 1;
  }

  /** xorshift32: reproducible text for a given seed. */
  private random(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x1_0000_0000;
  }

  text(words: number): string {
    const total = this.cumulative[VOCABULARY_SIZE - 1]!;
    const out: string[] = [];
    for (let i = 0; i < words; i += 1) {
      const target = this.random() * total;
      let low = 0;
      let high = VOCABULARY_SIZE - 1;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (this.cumulative[middle]! < target) low = middle + 1;
        else high = middle;
      }
      out.push(vocabularyWord(low));
    }
    return out.join(' ');
  }
}

/**
 * The queries the scenario rotates over, the costliest found at 100 000
 * posts within the rules (16 words): the 16 commonest words in one `or`
 * (every post matches), all 16 required (each candidate is checked for
 * every word), 15 common words and one of middling frequency (many posts
 * are checked before enough match), a phrase of the two commonest
 * (positions are checked post by post), and a common word with another
 * excluded (an exclusion cannot be answered from the index alone).
 */
export function costlySearchQueries(): string[] {
  const common = Array.from({ length: 16 }, (_, rank) => vocabularyWord(rank));
  return [
    common.join(' or '),
    common.join(' '),
    [...common.slice(0, 15), vocabularyWord(300)].join(' '),
    `"${common[0]} ${common[1]}"`,
    `${common[0]} ${common[1]} -${common[2]}`,
  ];
}

/**
 * Writes `count` posts by one new author into the stack's database and
 * answers when they are all searchable. Text search configuration as in
 * @latchkey/jobs-contract (`english`).
 */
export async function seedSearchCorpus(
  databaseUrl: string,
  count: number,
  onProgress: (message: string) => void = () => undefined,
): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const authorId = randomUUID();
    await db.query('INSERT INTO posts.authors (id, handle) VALUES ($1, $2)', [authorId, `corpus_${randomBytes(4).toString('hex')}`]);
    const words = new ZipfWords(count);
    for (let done = 0; done < count; done += BATCH) {
      const size = Math.min(BATCH, count - done);
      const ids: string[] = [];
      const titles: string[] = [];
      const bodies: string[] = [];
      for (let i = 0; i < size; i += 1) {
        ids.push(uuidv7());
        titles.push(words.text(TITLE_WORDS));
        bodies.push(words.text(BODY_WORDS));
      }
      await db.query('BEGIN');
      await db.query(
        `INSERT INTO posts.posts (id, author_id, title, storage_key)
         SELECT id, $2, title, 'bench-corpus/' || id FROM unnest($1::uuid[], $3::text[]) AS t (id, title)`,
        [ids, authorId, titles],
      );
      await db.query(
        `INSERT INTO search.post_documents (post_id, author_id, title, document, version)
         SELECT id, $2, title,
                setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B'), 1
           FROM unnest($1::uuid[], $3::text[], $4::text[]) AS t (id, title, body)`,
        [ids, authorId, titles, bodies],
      );
      await db.query('COMMIT');
      if ((done / BATCH) % 10 === 9) onProgress(`search corpus: ${done + size} of ${count} posts`);
    }
    await db.query('ANALYZE posts.posts');
    await db.query('ANALYZE search.post_documents');
  } finally {
    await db.end();
  }
}
