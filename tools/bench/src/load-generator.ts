import { startBenchChild, type BenchChild } from './child-scripts';
import { workerMessageSchema, type LoadJob, type LoadResult } from './load-messages';

/** Beyond the run itself: the search probe's settle time is added, and this margin. */
const ANSWER_MARGIN_MS = 30_000;

/**
 * The bench's side of the load worker (load-worker.ts): one child process
 * for the whole bench, running one job at a time. Keeping it avoids a
 * process start (and autocannon's JIT warm-up) for each of the short
 * alternating runs.
 */
export class LoadGenerator {
  private jobs = 0;

  private constructor(private readonly worker: BenchChild) {}

  static start(): LoadGenerator {
    return new LoadGenerator(startBenchChild('load-worker.js'));
  }

  get pid(): number {
    return this.worker.pid;
  }

  /** Runs one job; an aborted signal kills the worker, which fails the job. */
  async run(job: Omit<LoadJob, 'type' | 'id'>, signal?: AbortSignal): Promise<LoadResult> {
    signal?.throwIfAborted();
    this.jobs += 1;
    const id = this.jobs;
    const abort = (): void => void this.worker.stop(1_000);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const answer = this.worker.receive(
        workerMessageSchema.refine((message) => message.id === id || message.id === -1),
        job.durationSeconds * 1000 + (job.searchProbe?.settleTimeoutMs ?? 0) + ANSWER_MARGIN_MS,
      );
      this.worker.child.send({ type: 'run', id, ...job } satisfies LoadJob);
      const message = await answer;
      if (message.type === 'error') throw new Error(`the load worker failed: ${message.message}`);
      return message.result;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  stop(): Promise<void> {
    return this.worker.stop(2_000);
  }
}
