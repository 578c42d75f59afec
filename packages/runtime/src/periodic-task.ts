import type { Logger } from '@latchkey/telemetry';

export interface PeriodicTask {
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `run` now and then every `intervalMs`, one run at a time. A failed
 * run is logged and left to the next one. The timer alone does not keep a
 * stopping process alive.
 */
export function startPeriodicTask(
  task: { readonly description: string; readonly intervalMs: number; run(): Promise<void> },
  logger: Logger,
): PeriodicTask {
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running) return;
    running = task
      .run()
      .catch((error: unknown) => logger.warn({ err: error }, `${task.description} failed; will try again at the next interval`))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, task.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
