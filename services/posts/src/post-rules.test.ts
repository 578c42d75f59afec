import { AppError } from '@latchkey/errors';
import {
  assertValid,
  checkAuthorHandle,
  checkContent,
  checkPageSize,
  checkSearchQuery,
  checkTitle,
  checkUuid,
  normalizeTitle,
  pageSize,
} from './post-rules';

describe('checkTitle() / normalizeTitle()', () => {
  it('accepts 1 to 200 code points after trimming and stores the trimmed title', () => {
    expect(checkTitle('a')).toEqual([]);
    expect(checkTitle(`  ${'x'.repeat(200)}\n`)).toEqual([]);
    expect(normalizeTitle('  Hello world \t')).toBe('Hello world');
  });

  it('counts code points, not UTF-16 units: 200 emoji are 200 characters', () => {
    const emoji = '😀'.repeat(200);
    expect(emoji.length).toBe(400);
    expect(checkTitle(emoji)).toEqual([]);
    expect(checkTitle(`${emoji}😀`)).toHaveLength(1);
  });

  it('refuses an empty, blank or too long title', () => {
    const refusal = [{ field: 'title', message: 'must be 1-200 characters after trimming' }];
    expect(checkTitle('')).toEqual(refusal);
    expect(checkTitle(' \u00a0\n ')).toEqual(refusal);
    expect(checkTitle('x'.repeat(201))).toEqual(refusal);
  });
});

describe('checkContent()', () => {
  it('measures UTF-8 bytes against the limit', () => {
    expect(checkContent(' ', 10)).toEqual([]);
    expect(checkContent('x'.repeat(10), 10)).toEqual([]);
    // "é" is two bytes in UTF-8: five of them are ten bytes, six are twelve.
    expect(checkContent('é'.repeat(5), 10)).toEqual([]);
    expect(checkContent('é'.repeat(6), 10)).toEqual([{ field: 'content', message: 'must be 1-10 bytes of UTF-8' }]);
  });

  it('refuses empty content', () => {
    expect(checkContent('', 10)).toHaveLength(1);
  });
});

describe('checkUuid()', () => {
  it('accepts UUIDs in either case and refuses anything else', () => {
    expect(checkUuid('0190B6C4-2F1A-7D3E-9A55-3F1C2D4E5F60', 'id')).toEqual([]);
    expect(checkUuid('0190b6c4-2f1a-7d3e-9a55-3f1c2d4e5f6', 'id')).toEqual([{ field: 'id', message: 'must be a UUID' }]);
    expect(checkUuid("' OR 1=1 --", 'author_id')).toEqual([{ field: 'author_id', message: 'must be a UUID' }]);
  });
});

describe('checkPageSize() / pageSize()', () => {
  it('defaults to 20 and accepts 1 to 100', () => {
    expect(pageSize(undefined)).toBe(20);
    expect(checkPageSize(undefined)).toEqual([]);
    expect(checkPageSize(1)).toEqual([]);
    expect(checkPageSize(100)).toEqual([]);
  });

  it.each([0, -1, 101, 2.5])('refuses %s', (limit) => {
    expect(checkPageSize(limit)).toEqual([{ field: 'limit', message: 'must be an integer from 1 to 100' }]);
  });
});

describe('checkSearchQuery()', () => {
  it('accepts 1 to 200 characters after trimming, reported on `q`', () => {
    expect(checkSearchQuery(' rust ')).toEqual([]);
    expect(checkSearchQuery('   ')).toEqual([{ field: 'q', message: 'must be 1-200 characters' }]);
    expect(checkSearchQuery('q'.repeat(201))).toHaveLength(1);
    expect(checkSearchQuery(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' or '))).toEqual([]);
    expect(checkSearchQuery(Array.from({ length: 9 }, (_, i) => `e-mail${i}`).join(' '))).toEqual([
      { field: 'q', message: 'must have at most 16 words' },
    ]);
  });
});

describe('checkAuthorHandle()', () => {
  it('refuses an empty or padded handle', () => {
    expect(checkAuthorHandle('ada')).toEqual([]);
    expect(checkAuthorHandle('')).toHaveLength(1);
    expect(checkAuthorHandle(' ada')).toHaveLength(1);
  });
});

describe('assertValid()', () => {
  it('throws one validation error listing every failed field', () => {
    let thrown: unknown;
    try {
      assertValid(checkTitle(''), checkContent('', 5), checkUuid('x', 'id'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('validation:invalid_input');
    expect((thrown as AppError).fields.map((f) => f.field)).toEqual(['title', 'content', 'id']);
  });
});

describe('characters PostgreSQL cannot store', () => {
  it('refuses a NUL in a title, content or search query, naming the field', () => {
    expect(checkTitle('a\u0000b')).toEqual([{ field: 'title', message: 'must not contain the NUL character' }]);
    expect(checkContent('a\u0000b', 100)).toEqual([{ field: 'content', message: 'must not contain the NUL character' }]);
    expect(checkSearchQuery('\u0000')).toEqual([{ field: 'q', message: 'must not contain the NUL character' }]);
    expect(checkTitle('a\u0001b')).toEqual([]);
  });
});
