import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import pg from 'pg';
import { documentLiteral, lexemesOf, relevanceQueries, vocabularyWord } from './search-corpus';

/**
 * The corpus writes tsvector literals instead of running to_tsvector; they
 * must be the very documents the jobs worker would index for the same text,
 * or the bench would measure search over an index no deployment has.
 */

let database: TestDatabase;
let db: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('bench_corpus');
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});

afterAll(async () => {
  await db.end();
  await database.drop();
});

describe('documentLiteral()', () => {
  it('equals setweight(to_tsvector(title), A) || setweight(to_tsvector(body), B), stop words included', async () => {
    const vocabulary = Array.from({ length: 400 }, (_, rank) => vocabularyWord(rank * 12));
    const words = [...vocabulary, 'the', 'and', 'running'];
    const lexemeOf = await lexemesOf(db, words);
    const pick = (seed: number, count: number): string[] => Array.from({ length: count }, (_, i) => words[(seed * 31 + i * 17) % words.length]!);
    for (let seed = 0; seed < 20; seed += 1) {
      const title = pick(seed, 6);
      const body = pick(seed + 100, 150);
      const { rows } = await db.query<{ same: boolean }>(
        `SELECT $1::tsvector = (setweight(to_tsvector('english', $2), 'A') || setweight(to_tsvector('english', $3), 'B')) AS same`,
        [documentLiteral(title, body, lexemeOf), title.join(' '), body.join(' ')],
      );
      expect(rows[0]?.same).toBe(true);
    }
  });

  it('plants old best matches whose words are all common', () => {
    const common = new Set(Array.from({ length: 10 }, (_, rank) => vocabularyWord(rank)));
    for (const probe of relevanceQueries()) {
      expect(probe.query.split(' ').every((word) => common.has(word))).toBe(true);
      expect(new Set(`${probe.title} ${probe.body}`.split(' '))).toEqual(new Set(probe.query.split(' ')));
    }
  });
});
