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
const BATCH = 5_000;

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

  words(count: number): string[] {
    const total = this.cumulative[VOCABULARY_SIZE - 1]!;
    const out: string[] = [];
    for (let i = 0; i < count; i += 1) {
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
    return out;
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
 * Posts drawn like the corpus's (the same vocabulary and frequencies), to
 * create through the API while searching: each carries the commonest words,
 * so the index entries it adds are the ones the costliest queries read.
 */
export function corpusLikePosts(count: number): { title: string; content: string }[] {
  const words = new ZipfWords(0x5eed);
  return Array.from({ length: count }, () => ({ title: words.words(TITLE_WORDS).join(' '), content: words.words(BODY_WORDS).join(' ') }));
}

/** A query whose best match is the corpus's oldest post, and that post: does search find it on its first page? */
export interface RelevanceProbe {
  readonly query: string;
  readonly postId: string;
}

/**
 * The old best matches: for each query of two common words, a post written
 * before all others whose title and body are nothing but those words, so
 * that it outranks every other post under any ranking that counts
 * occurrences. A search that only ranks the newest matches never sees them.
 */
export function relevanceQueries(): { query: string; title: string; body: string }[] {
  return [0, 2, 4, 6, 8].map((rank) => {
    const pair = `${vocabularyWord(rank)} ${vocabularyWord(rank + 1)}`;
    return { query: pair, title: Array.from({ length: 3 }, () => pair).join(' '), body: Array.from({ length: 75 }, () => pair).join(' ') };
  });
}

/** One post's document as PostgreSQL prints a tsvector: each lexeme with its positions, title words weighted A, body words B. */
export function documentLiteral(titleWords: readonly string[], bodyWords: readonly string[], lexemeOf: ReadonlyMap<string, string>): string {
  const positions = new Map<string, string[]>();
  const add = (word: string, position: number, weight: string): void => {
    const lexeme = lexemeOf.get(word);
    // A stop word has no lexeme but keeps its position, as in to_tsvector.
    if (lexeme === undefined) return;
    let list = positions.get(lexeme);
    if (!list) {
      list = [];
      positions.set(lexeme, list);
    }
    list.push(`${position}${weight}`);
  };
  titleWords.forEach((word, index) => add(word, index + 1, 'A'));
  bodyWords.forEach((word, index) => add(word, titleWords.length + index + 1, 'B'));
  return [...positions].map(([lexeme, list]) => `'${lexeme}':${list.join(',')}`).join(' ');
}

/** What the english configuration makes of each word: its lexeme, or nothing for a stop word. */
export async function lexemesOf(db: pg.Client, words: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ word: string; lexeme: string | null }>(
    `SELECT w.word, (SELECT l.lexeme FROM unnest(to_tsvector('english', w.word)) AS l LIMIT 1) AS lexeme
       FROM unnest($1::text[]) AS w (word)`,
    [words],
  );
  const map = new Map<string, string>();
  for (const row of rows) if (row.lexeme !== null) map.set(row.word, row.lexeme);
  return map;
}

/** Above this many posts the GIN index is dropped during the load and built once after it, which is many times faster. */
const REBUILD_INDEX_FROM = 50_000;
const DOCUMENT_INDEX = 'post_documents_document_idx';
/** Keeps search.post_term_champions (services/jobs/migrations/search/002_term_champions.sql). */
const CHAMPIONS_TRIGGER = 'post_documents_champions';

/**
 * Writes `count` posts by one new author into the stack's database and
 * answers when they are all searchable, with the relevance probes it
 * planted first (the oldest posts). The documents are written as tsvector
 * literals built here, with the lexemes PostgreSQL's english configuration
 * gives each vocabulary word, so that a million posts load in minutes
 * instead of an hour of to_tsvector; search-corpus.test.ts checks that
 * they equal what the worker's to_tsvector makes.
 */
export async function seedSearchCorpus(
  databaseUrl: string,
  count: number,
  onProgress: (message: string) => void = () => undefined,
): Promise<RelevanceProbe[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const authorId = randomUUID();
    await db.query('INSERT INTO posts.authors (id, handle) VALUES ($1, $2)', [authorId, `corpus_${randomBytes(4).toString('hex')}`]);
    const lexemeOf = await lexemesOf(db, Array.from({ length: VOCABULARY_SIZE }, (_, rank) => vocabularyWord(rank)));
    const insert = async (ids: string[], titles: string[], documents: string[]): Promise<void> => {
      await db.query('BEGIN');
      await db.query(
        `INSERT INTO posts.posts (id, author_id, title, storage_key)
         SELECT id, $2, title, 'bench-corpus/' || id FROM unnest($1::uuid[], $3::text[]) AS t (id, title)`,
        [ids, authorId, titles],
      );
      await db.query(
        `INSERT INTO search.post_documents (post_id, author_id, title, document, version)
         SELECT id, $2, title, document, 1 FROM unnest($1::uuid[], $3::text[], $4::tsvector[]) AS t (id, title, document)`,
        [ids, authorId, titles, documents],
      );
      await db.query('COMMIT');
    };

    const planted = relevanceQueries().map((probe) => ({ ...probe, postId: uuidv7() }));
    await insert(
      planted.map((probe) => probe.postId),
      planted.map((probe) => probe.title),
      planted.map((probe) => documentLiteral(probe.title.split(' '), probe.body.split(' '), lexemeOf)),
    );

    const rebuild = count >= REBUILD_INDEX_FROM;
    let indexDefinition: string | undefined;
    if (rebuild) {
      const { rows } = await db.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = 'search' AND indexname = $1`,
        [DOCUMENT_INDEX],
      );
      indexDefinition = rows[0]?.indexdef;
      if (indexDefinition) await db.query(`DROP INDEX search.${DOCUMENT_INDEX}`);
      // The champion lists too: one statement after the load instead of a trigger call per post.
      await db.query(`ALTER TABLE search.post_documents DISABLE TRIGGER ${CHAMPIONS_TRIGGER}`);
    }
    const words = new ZipfWords(count);
    for (let done = 0; done < count; done += BATCH) {
      const size = Math.min(BATCH, count - done);
      const ids: string[] = [];
      const titles: string[] = [];
      const documents: string[] = [];
      for (let i = 0; i < size; i += 1) {
        const title = words.words(TITLE_WORDS);
        ids.push(uuidv7());
        titles.push(title.join(' '));
        documents.push(documentLiteral(title, words.words(BODY_WORDS), lexemeOf));
      }
      await insert(ids, titles, documents);
      if ((done / BATCH) % 50 === 49) onProgress(`search corpus: ${done + size} of ${count} posts`);
    }
    if (indexDefinition) {
      onProgress('search corpus: building the full-text index');
      await db.query(`SET maintenance_work_mem = '512MB'`);
      await db.query(indexDefinition);
    }
    if (rebuild) {
      onProgress('search corpus: building the champion lists');
      await db.query(
        `INSERT INTO search.post_term_champions (post_id, lexeme, impact)
         SELECT d.post_id, entry.lexeme, entry.impact
           FROM search.post_documents d
          CROSS JOIN LATERAL search.term_champion_entries(d.document) AS entry
          WHERE d.author_id = $1
         ON CONFLICT DO NOTHING`,
        [authorId],
      );
      await db.query(`ALTER TABLE search.post_documents ENABLE TRIGGER ${CHAMPIONS_TRIGGER}`);
      await db.query('ANALYZE search.post_term_champions');
    }
    await db.query('ANALYZE posts.posts');
    await db.query('ANALYZE search.post_documents');
    return planted.map(({ query, postId }) => ({ query, postId }));
  } finally {
    await db.end();
  }
}
