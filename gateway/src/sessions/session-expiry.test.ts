import { slidingRefresh } from './session-store';

const HOUR = 60 * 60 * 1000;
const policy = { slidingTtlMs: 168 * HOUR, maxLifetimeMs: 720 * HOUR, refreshThresholdPercent: 50 };

describe('slidingRefresh()', () => {
  const start = 1_000_000;
  const session = { expiresAt: start + 168 * HOUR, maxExpiresAt: start + 720 * HOUR };

  it('does not refresh while at least the threshold of the sliding TTL remains', () => {
    expect(slidingRefresh(session, policy, start + 84 * HOUR)).toEqual({ due: false, expiresAt: session.expiresAt });
  });

  it('extends to a full sliding TTL from now once below the threshold', () => {
    const now = start + 84 * HOUR + 1;
    expect(slidingRefresh(session, policy, now)).toEqual({ due: true, expiresAt: now + 168 * HOUR });
  });

  it('never extends past the absolute limit', () => {
    const late = { expiresAt: start + 700 * HOUR, maxExpiresAt: start + 720 * HOUR };
    expect(slidingRefresh(late, policy, start + 650 * HOUR)).toEqual({ due: true, expiresAt: late.maxExpiresAt });
  });

  it('refreshes on every request with a 100 % threshold and never with 0 %', () => {
    expect(slidingRefresh(session, { ...policy, refreshThresholdPercent: 100 }, start + 1).due).toBe(true);
    expect(slidingRefresh(session, { ...policy, refreshThresholdPercent: 0 }, start + 167 * HOUR).due).toBe(false);
  });
});
