// runProcess owns a process's life: it exits, signals and writes to stdout,
// so it is tested in a child process running the built package
// (`pnpm test` builds before jest runs).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const runtime = path.resolve(__dirname, '../dist/index.js');
const config = path.resolve(__dirname, '../../config/dist/index.js');

/** A process built on runProcess: `serve` runs until stopped, `once` finishes, `boom` fails. */
const script = `
const { runProcess } = require(${JSON.stringify(runtime)});
const { ConfigError, loadConfig } = require(${JSON.stringify(config)});
const { z } = require(${JSON.stringify(require.resolve('zod'))});
runProcess({
  service: 'probe',
  loadConfig: () => loadConfig(z.object({ LOG_LEVEL: z.string().default('info'), PROBE_PORT: z.coerce.number().int() }), process.env),
  defaultCommand: 'serve',
  guards: {
    serve: (config) => {
      if (config.PROBE_PORT === 0) throw new ConfigError(['PROBE_PORT: is required to serve']);
    },
  },
  commands: {
    serve: async () => async (_config, logger) => {
      // Stands for a listening server: it keeps the process alive until stopped.
      const work = setInterval(() => undefined, 1000);
      return {
        readyFields: { port: 1234 },
        stop: async () => { clearInterval(work); logger.info('draining'); },
      };
    },
    once: async () => async () => undefined,
    boom: async () => async () => { throw new Error('cannot start'); },
  },
});
`;
const directory = mkdtempSync(path.join(tmpdir(), 'runtime-'));
const file = path.join(directory, 'probe.js');
writeFileSync(file, script);

interface Run {
  code: number | null;
  lines: Record<string, unknown>[];
  stderr: string;
}

function run(args: string[], env: Record<string, string>, signalAfterReady?: NodeJS.Signals): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    const lines: Record<string, unknown>[] = [];
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      let newline;
      while ((newline = stdout.indexOf('\n')) >= 0) {
        const line = JSON.parse(stdout.slice(0, newline)) as Record<string, unknown>;
        stdout = stdout.slice(newline + 1);
        lines.push(line);
        if (line.msg === 'ready' && signalAfterReady) child.kill(signalAfterReady);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // 'close', not 'exit': output can still be arriving when the process has exited.
    child.on('close', (code) => resolve({ code, lines, stderr }));
  });
}

test('logs one ready line with its fields, and on SIGTERM drains and exits 0', async () => {
  const result = await run(['serve'], { PROBE_PORT: '1' }, 'SIGTERM');
  expect(result.code).toBe(0);
  const messages = result.lines.map((line) => line.msg);
  expect(messages[0]).toBe('ready');
  // Once, under CI load, 'stopping' arrived after 'stopped'; what is promised is that each is written.
  expect([...messages].sort()).toEqual(['draining', 'ready', 'stopped', 'stopping']);
  expect(result.lines[0]).toMatchObject({ service: 'probe', port: 1234 });
});

test('a command that finishes exits 0 without a ready line', async () => {
  const result = await run(['once'], { PROBE_PORT: '1' });
  expect(result.code).toBe(0);
  expect(result.lines.filter((line) => line.msg === 'ready')).toEqual([]);
});

test('bad configuration exits 1 naming the variable, before anything starts', async () => {
  const result = await run(['serve'], { PROBE_PORT: 'eighty' });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^probe: [\s\S]*PROBE_PORT/);
  expect(result.lines).toEqual([]);
});

test("a command's guard refuses it like bad configuration, and leaves the other commands alone", async () => {
  const refused = await run(['serve'], { PROBE_PORT: '0' });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^probe: [\s\S]*PROBE_PORT: is required to serve/);
  expect(refused.lines).toEqual([]);
  expect((await run(['once'], { PROBE_PORT: '0' })).code).toBe(0);
});

test('an unknown command exits 2 with the usage', async () => {
  const result = await run(['nope'], { PROBE_PORT: '1' });
  expect(result.code).toBe(2);
  expect(result.stderr).toBe('usage: probe [serve|once|boom]\n');
});

test('a command that fails to start is logged as fatal and exits 1', async () => {
  const result = await run(['boom'], { PROBE_PORT: '1' });
  expect(result.code).toBe(1);
  expect(result.lines.at(-1)).toMatchObject({ msg: 'boom failed', err: { message: 'cannot start' } });
});
