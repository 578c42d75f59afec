import { AppError } from '@latchkey/errors';
import { decodeIdCursor, decodeRankCursor, encodeIdCursor, encodeRankCursor, toPage } from './post-cursor';

const id = '0190b6c4-2f1a-7d3e-9a55-3f1c2d4e5f60';

function fieldsOf(run: () => unknown): readonly { field: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation:invalid_input') return error.fields;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('encodeIdCursor() / decodeIdCursor()', () => {
  it('round-trips an id through an opaque base64url string', () => {
    const cursor = encodeIdCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(id);
    expect(decodeIdCursor(cursor)).toBe(id);
  });

  it('answers undefined for the empty cursor of the first page', () => {
    expect(decodeIdCursor('')).toBeUndefined();
  });

  it('lower-cases the id it decodes', () => {
    expect(decodeIdCursor(encodeIdCursor(id.toUpperCase()))).toBe(id);
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{id:').toString('base64url')],
    ['not an object', Buffer.from(JSON.stringify([id])).toString('base64url')],
    ['a malformed id', Buffer.from(JSON.stringify({ id: 'nope' })).toString('base64url')],
    ['an id that is not a string', Buffer.from(JSON.stringify({ id: 7 })).toString('base64url')],
    ['an extra key', Buffer.from(JSON.stringify({ id, x: '1' })).toString('base64url')],
    ['a search cursor', encodeRankCursor({ rank: '0.1', id })],
    ['an overlong string', 'a'.repeat(201)],
  ])('refuses %s as a validation error on `cursor`', (_case, cursor) => {
    expect(fieldsOf(() => decodeIdCursor(cursor))).toEqual([{ field: 'cursor', message: 'is not a valid cursor' }]);
  });
});

describe('encodeRankCursor() / decodeRankCursor()', () => {
  it.each(['0.1', '0', '1.5', '2.5e-06', '1e+20'])('round-trips the rank %s exactly as printed', (rank) => {
    expect(decodeRankCursor(encodeRankCursor({ rank, id }))).toEqual({ rank, id });
  });

  it('answers undefined for the empty cursor', () => {
    expect(decodeRankCursor('')).toBeUndefined();
  });

  it.each([
    ['a list cursor', encodeIdCursor(id)],
    ['a negative rank', encodeRankCursor({ rank: '-1', id })],
    ['a rank that is not a number', encodeRankCursor({ rank: 'NaN', id })],
    ['an injection attempt', encodeRankCursor({ rank: "0'; DROP TABLE posts; --", id })],
    ['a malformed id', encodeRankCursor({ rank: '0.1', id: 'x' })],
  ])('refuses %s', (_case, cursor) => {
    expect(fieldsOf(() => decodeRankCursor(cursor))).toEqual([{ field: 'cursor', message: 'is not a valid cursor' }]);
  });
});

describe('toPage()', () => {
  const cursorOf = (n: number): string => `after-${n}`;

  it('gives a cursor after the last item when the query found one row more than the page', () => {
    expect(toPage([1, 2, 3], 2, cursorOf)).toEqual({ items: [1, 2], nextCursor: 'after-2' });
  });

  it('gives no cursor on the last page, full or not', () => {
    expect(toPage([1, 2], 2, cursorOf)).toEqual({ items: [1, 2], nextCursor: '' });
    expect(toPage([1], 2, cursorOf)).toEqual({ items: [1], nextCursor: '' });
    expect(toPage([], 2, cursorOf)).toEqual({ items: [], nextCursor: '' });
  });
});
