import { searchQueries, UniqueWords } from './search-probe';

describe('UniqueWords', () => {
  it('makes distinct letter-digit words and finds them in text', () => {
    const words = new UniqueWords();
    const first = words.next();
    const second = words.next();
    expect(first).not.toBe(second);
    expect(first).toMatch(/^q7[0-9a-f]{8}x[0-9a-z]+$/);
    expect(words.find(`Bench ${second}`)).toBe(second);
    expect(new UniqueWords().find(`Bench ${second}`)).toBeUndefined();
  });
});

describe('searchQueries()', () => {
  it('ORs words into queries of at most 200 characters and 16 words that together hold every word', () => {
    const words = new UniqueWords();
    const all = Array.from({ length: 60 }, () => words.next());
    const queries = searchQueries(all);
    expect(queries.length).toBeGreaterThan(1);
    for (const query of queries) {
      expect(query.length).toBeLessThanOrEqual(200);
      expect(query.split(' or ').length).toBeLessThanOrEqual(16);
    }
    const short = Array.from({ length: 40 }, (_, i) => `q${i}`);
    expect(searchQueries(short).map((query) => query.split(' or ').length)).toEqual([16, 16, 8]);
    expect(queries.flatMap((query) => query.split(' or '))).toEqual(all);
  });

  it('answers no query for no words', () => {
    expect(searchQueries([])).toEqual([]);
  });
});
