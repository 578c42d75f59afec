import type { Deadline } from '@grpc/grpc-js';

/** The budget of a call whose caller set no deadline (a tool, a test): no work runs unbounded. */
export const DEFAULT_CALL_BUDGET_MS = 10_000;

/**
 * The share of the caller's remaining time a server keeps back to send its
 * answer, and its cap. Work that ends inside the server's deadline is then
 * heard of by the caller: a write is either reported done or, when the
 * server stops at its deadline, not committed.
 */
const ANSWER_RESERVE_FRACTION = 0.1;
const MAX_ANSWER_RESERVE_MS = 50;

/** The absolute deadline a server works to, from the deadline its caller sent. */
export function serverDeadline(callerDeadline: Deadline, now: number): number {
  const caller = callerDeadline instanceof Date ? callerDeadline.getTime() : callerDeadline;
  if (!Number.isFinite(caller)) return now + DEFAULT_CALL_BUDGET_MS;
  const remaining = Math.max(0, caller - now);
  return now + remaining - Math.min(MAX_ANSWER_RESERVE_MS, remaining * ANSWER_RESERVE_FRACTION);
}
