import { DEFAULT_CALL_BUDGET_MS, serverDeadline } from './call-deadline';

describe('serverDeadline()', () => {
  const now = 1_000_000;

  it('gives a call without a deadline the default budget', () => {
    expect(serverDeadline(Infinity, now)).toBe(now + DEFAULT_CALL_BUDGET_MS);
  });

  it('keeps back a tenth of a short budget for the answer', () => {
    expect(serverDeadline(now + 200, now)).toBe(now + 180);
  });

  it('keeps back at most 50 ms of a long budget', () => {
    expect(serverDeadline(new Date(now + 5_000), now)).toBe(now + 4_950);
  });

  it('never ends before now when the caller’s deadline has passed', () => {
    expect(serverDeadline(now - 10, now)).toBe(now);
  });
});
