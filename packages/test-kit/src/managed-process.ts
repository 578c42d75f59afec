import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from './wait-for';

export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process wrote, stdout and stderr interleaved. */
  output(): string;
  /** Waits until a line matching `pattern` appears. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts a real process of ours (`node dist/main.js ...`) the way an operator would. */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string | undefined>;
    /** Another OS user to run as (PostgreSQL and PgBouncer refuse root). */
    user?: { readonly uid: number; readonly gid: number } | undefined;
  },
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    child,
    output: () => text,
    waitForOutput(pattern, timeoutMs = 20_000) {
      const printed = waitFor(() => pattern.exec(text)?.[0], { timeoutMs, description: `${name} to print ${pattern}` });
      // A process that dies first will never print it: fail at once instead of at the deadline.
      const died = exited.then((code) => {
        throw new Error(`${name} exited with ${String(code)} before printing ${pattern}`);
      });
      return Promise.race([printed, died]).catch((error: Error) => {
        throw new Error(`${error.message}\n--- ${name} output ---\n${text.slice(-4000)}`, { cause: error });
      });
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
