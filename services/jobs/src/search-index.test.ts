import { staleIndexOutcome } from './search-index';

describe('staleIndexOutcome()', () => {
  it('lets a job run when the index has nothing or an older version', () => {
    expect(staleIndexOutcome(undefined, 1)).toBeUndefined();
    expect(staleIndexOutcome({ version: 1, deleted: false }, 2)).toBeUndefined();
  });

  it('skips a redelivery of the indexed version as a duplicate', () => {
    expect(staleIndexOutcome({ version: 2, deleted: false }, 2)).toBe('duplicate');
  });

  it('skips an older version as superseded', () => {
    expect(staleIndexOutcome({ version: 3, deleted: false }, 2)).toBe('superseded');
  });

  it('never lets a job past a tombstone, whatever its version', () => {
    expect(staleIndexOutcome({ version: 2, deleted: true }, 1)).toBe('superseded');
    expect(staleIndexOutcome({ version: 2, deleted: true }, 2)).toBe('superseded');
    expect(staleIndexOutcome({ version: 2, deleted: true }, 5)).toBe('superseded');
  });
});
