import { describeExit, parseReadyLine, startUnitProcess, UnitStartError, type UnitProcess } from './unit-process';

/** A Node process running `script`, as the stack runs a unit's dist/main.js. */
function startScript(script: string): UnitProcess {
  return startUnitProcess({
    name: 'fake',
    command: process.execPath,
    args: ['-e', script],
    cwd: __dirname,
    env: { PATH: process.env.PATH ?? '' },
  });
}

const logLine = (fields: Record<string, unknown>): string =>
  `console.log(${JSON.stringify(JSON.stringify({ level: 'info', time: '2025-01-01T00:00:00.000Z', ...fields }))});`;
const stayAlive = 'setInterval(() => undefined, 1000);';

async function outputContains(unit: UnitProcess, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!unit.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no ${text} in the output within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('parseReadyLine', () => {
  it('accepts a pino line whose msg is exactly ready', () => {
    expect(parseReadyLine('{"level":"info","service":"jobs","msg":"ready"}')).toEqual({ ports: {} });
    expect(parseReadyLine('{"level":"info","msg":"ready","grpc_port":41000,"metrics_port":41001}')).toEqual({
      ports: { GRPC_PORT: 41000, METRICS_PORT: 41001 },
    });
    expect(parseReadyLine('{"level":30,"msg":"ready","url":"http://0.0.0.0:8080","port":8080}\r')).toEqual({
      ports: { GATEWAY_PORT: 8080 },
      url: 'http://0.0.0.0:8080',
    });
  });

  it('rejects other messages, other shapes and non-JSON', () => {
    expect(parseReadyLine('{"msg":"ready soon"}')).toBeUndefined();
    expect(parseReadyLine('{"msg":"Ready"}')).toBeUndefined();
    expect(parseReadyLine('{"message":"ready"}')).toBeUndefined();
    expect(parseReadyLine('ready')).toBeUndefined();
    expect(parseReadyLine('{"msg":"ready"')).toBeUndefined();
    expect(parseReadyLine('["ready"]')).toBeUndefined();
  });
});

describe('describeExit', () => {
  it('names the code or the signal', () => {
    expect(describeExit({ code: 1, signal: null })).toBe('exited with code 1');
    expect(describeExit({ code: null, signal: 'SIGKILL' })).toBe('killed by SIGKILL');
  });
});

describe('startUnitProcess', () => {
  it('is ready when the process logs its ready line, and stops on SIGTERM', async () => {
    const unit = startScript(
      `${logLine({ msg: 'starting' })}` +
        `setTimeout(() => { ${logLine({ msg: 'ready', url: 'http://127.0.0.1:1' })} }, 50);` +
        `process.on('SIGTERM', () => { ${logLine({ msg: 'stopping' })} process.exit(0); }); ${stayAlive}`,
    );
    await expect(unit.waitUntilReady(5_000)).resolves.toEqual({ url: 'http://127.0.0.1:1', ports: {} });
    expect(unit.pid).toEqual(expect.any(Number));
    await expect(unit.stop(5_000)).resolves.toEqual({ code: 0, signal: null });
    expect(unit.output()).toContain('"msg":"stopping"');
    expect(unit.lastLines(1)[0]).toContain('stopping');
  });

  it('rejects with the last output when the process exits before it is ready', async () => {
    const unit = startScript(
      `console.error('Invalid configuration:'); console.error('  - DATABASE_URL: is required'); process.exit(1);`,
    );
    const failure = unit.waitUntilReady(5_000);
    await expect(failure).rejects.toThrow(UnitStartError);
    await expect(failure).rejects.toThrow('fake exited with code 1 before it was ready');
    await failure.catch((error: UnitStartError) =>
      expect(error.lastLines).toEqual(['Invalid configuration:', '  - DATABASE_URL: is required']),
    );
  });

  it('rejects when no ready line comes in time', async () => {
    const unit = startScript(`${logLine({ msg: 'connecting' })} ${stayAlive}`);
    try {
      await expect(unit.waitUntilReady(300)).rejects.toThrow('fake printed no ready line within 300 ms');
    } finally {
      await unit.stop(1_000);
    }
  });

  it('does not take a ready line on stderr', async () => {
    const unit = startScript(`console.error(${JSON.stringify(JSON.stringify({ msg: 'ready' }))}); ${stayAlive}`);
    try {
      // A busy machine can take longer than any short wait to start Node, so
      // first see the line arrive, then ask whether it counted as ready.
      await outputContains(unit, '"msg":"ready"', 10_000);
      await expect(unit.waitUntilReady(300)).rejects.toThrow('no ready line');
    } finally {
      await unit.stop(1_000);
    }
  });

  it('kills a process that ignores SIGTERM once the grace time is over', async () => {
    const unit = startScript(`process.on('SIGTERM', () => undefined); ${logLine({ msg: 'ready' })} ${stayAlive}`);
    await unit.waitUntilReady(5_000);
    await expect(unit.stop(200)).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    expect(unit.exit()).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('reports a command that cannot be started', async () => {
    const unit = startUnitProcess({ name: 'missing', command: '/nonexistent/node', args: [], cwd: __dirname, env: {} });
    await expect(unit.waitUntilReady(5_000)).rejects.toThrow('missing exited');
    expect(unit.output()).toContain('ENOENT');
  });
});
