export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

/**
 * The nearest-rank percentile (the smallest value with at least `percent`
 * of the values at or below it) of values sorted ascending.
 */
export function percentile(sorted: ArrayLike<number>, percent: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((percent / 100) * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

/** p50, p99, mean and max of latencies in milliseconds (all 0 when there are none). */
export function summarizeLatencies(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: sorted.length === 0 ? 0 : round(total / sorted.length),
    maxMs: round(sorted.length === 0 ? 0 : (sorted[sorted.length - 1] ?? 0)),
  };
}

/** Two decimals: sub-millisecond differences matter for the bare routes, more do not. */
export function round(value: number, decimals = 2): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
