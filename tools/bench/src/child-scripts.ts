import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';

/**
 * tools/bench/dist, from this file in src/ (tests) or dist/ (the CLI). The
 * child processes always run the built JavaScript: Node 20 cannot run the
 * TypeScript sources, and the measured stack runs built code too.
 */
const distDir = path.resolve(__dirname, '..', 'dist');

/** The built script of a bench child process (`load-worker.js`, `baselines/bare-server.js`, …). */
export function childScript(relativePath: string): string {
  const script = path.join(distDir, relativePath);
  if (!existsSync(script)) throw new Error(`not built: ${script} (run \`pnpm build\` or \`node tools/build/build.mjs\`)`);
  return script;
}

export interface BenchChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The next message that parses with `schema`; rejects if the child exits first. */
  receive<T>(schema: z.ZodType<T>, timeoutMs: number): Promise<T>;
  /** What the child wrote to stdout and stderr, for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Forks a bench child with an IPC channel. Advanced serialization carries
 * the latencies as a Float64Array, far cheaper than JSON for the hundred
 * thousand numbers of a fast run.
 */
export function startBenchChild(relativePath: string, env: NodeJS.ProcessEnv = process.env): BenchChild {
  const child = fork(childScript(relativePath), [], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  if (child.pid === undefined) throw new Error(`could not start ${relativePath}`);
  const pid = child.pid;
  let output = '';
  const keep = (chunk: Buffer): void => {
    // The last few kilobytes are what explain a failure.
    output = (output + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    child,
    pid,
    output: () => output,
    receive<T>(schema: z.ZodType<T>, timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let refused = '';
        const cleanup = (): void => {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
        };
        const onMessage = (message: unknown): void => {
          const parsed = schema.safeParse(message);
          if (!parsed.success) {
            // Another job's answer, or a malformed one: the latter explains a timeout.
            refused = parsed.error.message;
            return;
          }
          cleanup();
          resolve(parsed.data);
        };
        const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
          cleanup();
          reject(new Error(`${relativePath} exited (${signal ?? `code ${code}`}) before answering:\n${output}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          const why = refused === '' ? '' : `\nlast message not understood: ${refused}`;
          reject(new Error(`${relativePath} did not answer within ${timeoutMs} ms${why}\n${output}`));
        }, timeoutMs);
        child.on('message', onMessage);
        child.once('exit', onExit);
      });
    },
    async stop(graceMs = 5_000): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
