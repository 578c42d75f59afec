import { startProcess } from './managed-process';

const node = process.execPath;
const env = { PATH: process.env.PATH };

test('waits for a line the process prints, and stops it with SIGTERM', async () => {
  const child = startProcess('printer', node, ['-e', "console.log('ready on 1234'); setInterval(() => {}, 1000)"], { cwd: __dirname, env });
  await expect(child.waitForOutput(/ready on (\d+)/)).resolves.toBe('ready on 1234');
  expect(child.output()).toContain('ready on 1234');
  expect(await child.stop(2_000)).toBeNull();
  expect(child.child.signalCode).toBe('SIGTERM');
});

test('fails at once, with what the process printed, when it exits before printing the line', async () => {
  const child = startProcess('crasher', node, ['-e', "console.error('bad configuration'); process.exit(3)"], { cwd: __dirname, env });
  const started = Date.now();
  const failure: Error = await child.waitForOutput(/ready/, 20_000).then(
    (line) => new Error(`printed ${line}`),
    (error: unknown) => error as Error,
  );
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(failure.message).toContain('crasher exited with 3 before printing /ready/');
  expect(failure.message).toContain('bad configuration');
  // Stopping a process that already ended answers its exit code.
  expect(await child.stop()).toBe(3);
});

test('kills a process that ignores SIGTERM once the grace time is over', async () => {
  const child = startProcess('stubborn', node, ['-e', "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000)"], { cwd: __dirname, env });
  await child.waitForOutput(/up/);
  await child.stop(200);
  expect(child.child.signalCode).toBe('SIGKILL');
});
