import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadJob, LoadResult, RequestTemplate } from './load-messages';

type OpenLoopJob = LoadJob & { openLoop: NonNullable<LoadJob['openLoop']> };

/** An answer slower than this counts as a timeout, so that the run ends. */
const REQUEST_TIMEOUT_MS = 10_000;

class Answers {
  readonly latencies: number[] = [];
  readonly statusCodes: Record<string, number> = {};
  succeeded = 0;
  non2xx = 0;
  socketErrors = 0;
  timeouts = 0;
}

async function send(origin: string, template: RequestTemplate, answers: Answers): Promise<void> {
  const sent = performance.now();
  try {
    const response = await fetch(`${origin}${template.path}`, {
      method: template.method,
      headers: template.headers,
      ...(template.body === undefined ? {} : { body: template.body }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    answers.latencies.push(performance.now() - sent);
    answers.statusCodes[String(response.status)] = (answers.statusCodes[String(response.status)] ?? 0) + 1;
    if (response.ok) answers.succeeded += 1;
    else answers.non2xx += 1;
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    answers.socketErrors += 1;
    if (timedOut) answers.timeouts += 1;
    // Counted beside the statuses, so that the report says what the errors were.
    const kind = timedOut ? 'timeout' : 'socket error';
    answers.statusCodes[kind] = (answers.statusCodes[kind] ?? 0) + 1;
  }
}

/**
 * Sends the templates in turn, one every 1000 / `rate` ms for `durationMs`,
 * each when it is due however many are still unanswered (a closed loop
 * would slow down with the server and hide its queue); a send the timer
 * made late goes out at once. Resolves when every request is answered.
 */
async function sendOnSchedule(origin: string, templates: readonly RequestTemplate[], rate: number, durationMs: number, answers: Answers): Promise<void> {
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let index = 0; (index * 1000) / rate < durationMs; index += 1) {
    const wait = start + (index * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(send(origin, templates[index % templates.length] as RequestTemplate, answers));
  }
  await Promise.all(inFlight);
}

/**
 * An open-loop job: `requests` at their rate and, beside them, the
 * writes at theirs. The result is the requests'; the writes are counted
 * in `writes`.
 */
export async function runOpenLoad(job: OpenLoopJob): Promise<LoadResult> {
  const origin = new URL(job.url).origin;
  const reads = new Answers();
  const writes = new Answers();
  const cpuBefore = process.cpuUsage();
  const durationMs = job.durationSeconds * 1000;
  await Promise.all([
    sendOnSchedule(origin, job.requests, job.openLoop.rate, durationMs, reads),
    sendOnSchedule(origin, job.openLoop.writes, job.openLoop.writeRate, durationMs, writes),
  ]);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    // The rates are over the schedule: answers still arriving after it are the server's delay, not more time.
    durationSeconds: job.durationSeconds,
    latenciesMs: Float64Array.from(reads.latencies),
    non2xx: reads.non2xx,
    socketErrors: reads.socketErrors,
    timeouts: reads.timeouts,
    statusCodes: reads.statusCodes,
    loaderCpuMs: (cpu.user + cpu.system) / 1000,
    loaderPeakRssBytes: process.resourceUsage().maxRSS * 1024,
    writes: { succeeded: writes.succeeded, failed: writes.non2xx + writes.socketErrors, statusCodes: writes.statusCodes },
  };
}
