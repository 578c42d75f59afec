import { MAX_RETRY_DELAY_MS, retryDelayMs } from './retry-delay';

describe('retryDelayMs()', () => {
  it('doubles the base for each failed delivery', () => {
    expect([1, 2, 3, 4, 5].map((delivery) => retryDelayMs(delivery, 1_000))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it('caps the delay at a minute', () => {
    expect(retryDelayMs(7, 1_000)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(100, 1_000)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(10_000, 60_000)).toBe(MAX_RETRY_DELAY_MS);
  });
});
