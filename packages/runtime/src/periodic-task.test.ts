import type { Logger } from '@latchkey/telemetry';
import { startPeriodicTask } from './periodic-task';

/** A logger that keeps the warnings it is given. */
function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message) } as unknown as Logger;
  return { logger, warnings };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('startPeriodicTask() runs at once, then every interval, never two runs at a time', async () => {
  const { logger } = recordingLogger();
  let runs = 0;
  let finish: () => void = () => undefined;
  const task = startPeriodicTask(
    {
      description: 'probe',
      intervalMs: 1_000,
      run: () => {
        runs += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
    },
    logger,
  );
  expect(runs).toBe(1);
  // The first run is still going: the interval passes it by.
  await jest.advanceTimersByTimeAsync(2_500);
  expect(runs).toBe(1);
  finish();
  await jest.advanceTimersByTimeAsync(1_000);
  expect(runs).toBe(2);
  finish();
  await task.stop();
  await jest.advanceTimersByTimeAsync(5_000);
  expect(runs).toBe(2);
});

test('startPeriodicTask() logs a failed run and tries again at the next interval', async () => {
  const { logger, warnings } = recordingLogger();
  let runs = 0;
  const task = startPeriodicTask(
    {
      description: 'the probe sweep',
      intervalMs: 1_000,
      run: async () => {
        runs += 1;
        if (runs === 1) throw new Error('down');
      },
    },
    logger,
  );
  await jest.advanceTimersByTimeAsync(0);
  expect(warnings).toEqual(['the probe sweep failed; will try again at the next interval']);
  await jest.advanceTimersByTimeAsync(1_000);
  expect(runs).toBe(2);
  expect(warnings).toHaveLength(1);
  await task.stop();
});

test('stop() waits for the run in progress', async () => {
  const { logger } = recordingLogger();
  let finish: () => void = () => undefined;
  let finished = false;
  const task = startPeriodicTask(
    {
      description: 'probe',
      intervalMs: 1_000,
      run: () =>
        new Promise<void>((resolve) => {
          finish = () => {
            finished = true;
            resolve();
          };
        }),
    },
    logger,
  );
  const stopped = task.stop().then(() => finished);
  finish();
  expect(await stopped).toBe(true);
});
