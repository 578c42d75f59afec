import { round } from './latency-stats';

/**
 * Where a request's time goes, from the units' own Prometheus histograms:
 * the gateway's `http_request_duration_seconds` per route and each gRPC
 * service's `grpc_server_handling_seconds` per method. Read before and
 * after a run, the difference of `_sum` and `_count` is the mean time per
 * call during the run, with no change to any unit.
 */

export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Sums and counts by `<unit> <operation>`. */
export type TimingSnapshot = ReadonlyMap<string, { readonly seconds: number; readonly count: number }>;

export interface OperationTiming {
  readonly unit: string;
  /** `GET /v0/users/me` for the gateway, `/identity.v1.IdentityService/GetUser` for a service. */
  readonly operation: string;
  readonly calls: number;
  /** Mean time the unit spent on one call, from receipt to answer. */
  readonly meanMs: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (comments skipped). */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) {
      if (label[1] !== undefined && label[2] !== undefined) labels[label[1]] = label[2];
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The operation a histogram sample belongs to, or undefined for other metrics. */
function operationOf(sample: MetricSample): { operation: string; part: 'sum' | 'count' } | undefined {
  const part = sample.name.endsWith('_sum') ? 'sum' : sample.name.endsWith('_count') ? 'count' : undefined;
  if (!part) return undefined;
  const base = sample.name.slice(0, sample.name.length - (part === 'sum' ? 4 : 6));
  if (base === 'grpc_server_handling_seconds' && sample.labels.grpc_service && sample.labels.grpc_method) {
    return { operation: `/${sample.labels.grpc_service}/${sample.labels.grpc_method}`, part };
  }
  if (base === 'http_request_duration_seconds' && sample.labels.route) {
    return { operation: `${sample.labels.method ?? ''} ${sample.labels.route}`.trim(), part };
  }
  return undefined;
}

/** Adds the samples of one unit to a snapshot (status codes of one route are summed). */
export function timingsOf(
  unit: string,
  samples: readonly MetricSample[],
  into = new Map<string, { seconds: number; count: number }>(),
): Map<string, { seconds: number; count: number }> {
  for (const sample of samples) {
    const found = operationOf(sample);
    if (!found) continue;
    const key = `${unit} ${found.operation}`;
    const entry = into.get(key) ?? { seconds: 0, count: 0 };
    if (found.part === 'sum') entry.seconds += sample.value;
    else entry.count += sample.value;
    into.set(key, entry);
  }
  return into;
}

/** Scrapes every unit's /metrics; a unit that does not answer is left out. */
export async function readTimings(metricsUrls: ReadonlyMap<string, string>): Promise<TimingSnapshot> {
  const snapshot = new Map<string, { seconds: number; count: number }>();
  await Promise.all(
    [...metricsUrls].map(async ([unit, url]) => {
      try {
        const response = await fetch(url);
        if (response.ok) timingsOf(unit, parsePrometheusText(await response.text()), snapshot);
      } catch {
        // Timings are an aid to reading the results, not a result: a missing unit leaves a gap.
      }
    }),
  );
  return snapshot;
}

/** Several runs' timings as one: calls added, mean times weighted by calls. */
export function mergeTimings(runs: readonly (readonly OperationTiming[])[]): OperationTiming[] {
  const merged = new Map<string, { unit: string; operation: string; calls: number; totalMs: number }>();
  for (const timing of runs.flat()) {
    const key = `${timing.unit} ${timing.operation}`;
    const entry = merged.get(key) ?? { unit: timing.unit, operation: timing.operation, calls: 0, totalMs: 0 };
    entry.calls += timing.calls;
    entry.totalMs += timing.calls * timing.meanMs;
    merged.set(key, entry);
  }
  return [...merged.values()]
    .map(({ unit, operation, calls, totalMs }) => ({ unit, operation, calls, meanMs: round(totalMs / calls, 3) }))
    .sort((a, b) => b.calls - a.calls);
}

/** Calls and mean time of every operation that ran between two snapshots, busiest first. */
export function timingsBetween(before: TimingSnapshot, after: TimingSnapshot): OperationTiming[] {
  const timings: OperationTiming[] = [];
  for (const [key, end] of after) {
    const start = before.get(key) ?? { seconds: 0, count: 0 };
    const calls = end.count - start.count;
    if (calls <= 0) continue;
    const space = key.indexOf(' ');
    timings.push({
      unit: key.slice(0, space),
      operation: key.slice(space + 1),
      calls,
      meanMs: round(((end.seconds - start.seconds) * 1000) / calls, 3),
    });
  }
  return timings.sort((a, b) => b.calls - a.calls);
}
