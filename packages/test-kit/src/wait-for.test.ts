import { waitFor } from './wait-for';

test('answers the first value the probe gives, polling through undefined and thrown errors', async () => {
  let calls = 0;
  const value = await waitFor(
    () => {
      calls += 1;
      if (calls === 1) throw new Error('not yet');
      return calls < 4 ? undefined : `after ${calls}`;
    },
    { intervalMs: 1 },
  );
  expect(value).toBe('after 4');
  expect(calls).toBe(4);
});

test('takes a falsy value other than undefined as an answer', async () => {
  await expect(waitFor(async () => 0)).resolves.toBe(0);
  await expect(waitFor(() => false)).resolves.toBe(false);
});

test('fails at the deadline, naming what it waited for, with the last error as the cause', async () => {
  const started = Date.now();
  const failure = await waitFor(
    () => {
      throw new Error('still refused');
    },
    { timeoutMs: 100, intervalMs: 10, description: 'the door to open' },
  ).catch((error: unknown) => error as Error);
  expect(failure.message).toBe('timed out waiting for the door to open');
  expect((failure.cause as Error).message).toBe('still refused');
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(Date.now() - started).toBeLessThan(2_000);
});
