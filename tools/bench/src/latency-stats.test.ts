import { percentile, summarizeLatencies } from './latency-stats';

describe('percentile()', () => {
  it('answers the nearest-rank value', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('summarizeLatencies()', () => {
  it('sorts, and rounds to hundredths of a millisecond', () => {
    expect(summarizeLatencies([3.333, 1, 2])).toEqual({ count: 3, p50Ms: 2, p99Ms: 3.33, meanMs: 2.11, maxMs: 3.33 });
    expect(summarizeLatencies([])).toEqual({ count: 0, p50Ms: 0, p99Ms: 0, meanMs: 0, maxMs: 0 });
  });
});
