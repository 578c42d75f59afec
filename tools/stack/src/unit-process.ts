import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { z } from 'zod';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The fields of a process's `ready` log line that the stack reports. */
export interface ReadyLine {
  /** Where the gateway listens, as it logs it. */
  readonly url?: string;
  /** The ports it bound, by the variable that asked for them (with 0, the OS picked them). */
  readonly ports: Readonly<Record<string, number>>;
}

/** How many lines of output a process keeps; older ones are dropped so a long session stays small. */
const keptLines = 2_000;

/**
 * Our processes log pino JSON, one object a line, and log `msg: "ready"`
 * once they accept work (the gateway adds `url`). Other lines, including
 * non-JSON output of a crashing process, are not ready lines.
 */
const readyLineSchema = z.object({
  msg: z.literal('ready'),
  url: z.string().optional(),
  grpc_port: z.number().int().positive().optional(),
  admin_grpc_port: z.number().int().positive().optional(),
  metrics_port: z.number().int().positive().optional(),
  port: z.number().int().positive().optional(),
});

/** The fields of a ready line that report a bound port, and the variable each answers. */
const reportedPorts = {
  grpc_port: 'GRPC_PORT',
  admin_grpc_port: 'ADMIN_GRPC_PORT',
  metrics_port: 'METRICS_PORT',
  port: 'GATEWAY_PORT',
} as const;

export function parseReadyLine(line: string): ReadyLine | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  const result = readyLineSchema.safeParse(parsed);
  if (!result.success) return undefined;
  const ports: Record<string, number> = {};
  for (const [field, variable] of Object.entries(reportedPorts)) {
    const value = result.data[field as keyof typeof reportedPorts];
    if (value !== undefined) ports[variable] = value;
  }
  return result.data.url === undefined ? { ports } : { url: result.data.url, ports };
}

export function describeExit(exit: ProcessExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? 'unknown'}`;
}

/** A unit that exited or stayed silent before it was ready, with what it printed last. */
export class UnitStartError extends Error {
  override readonly name = 'UnitStartError';
  readonly unit: string;
  readonly lastLines: readonly string[];

  constructor(unit: string, reason: string, lastLines: readonly string[]) {
    super(`${unit} ${reason}${lastLines.length > 0 ? `; last output:\n${lastLines.join('\n')}` : ' without output'}`);
    this.unit = unit;
    this.lastLines = lastLines;
  }
}

export interface UnitProcess {
  readonly name: string;
  readonly pid: number | undefined;
  /** What the process printed, stdout and stderr interleaved by line (the last 2000 lines). */
  output(): string;
  lastLines(count: number): string[];
  /** Resolves when the process has exited and its output is read to the end. */
  readonly exited: Promise<ProcessExit>;
  /** The exit, once there is one. */
  exit(): ProcessExit | undefined;
  /** Resolves with its ready line; rejects with UnitStartError if it exits first or `timeoutMs` passes. */
  waitUntilReady(timeoutMs: number): Promise<ReadyLine>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs: number): Promise<ProcessExit>;
  /** SIGKILL without waiting, for when this process itself is exiting. */
  kill(): void;
}

export interface UnitProcessOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** A file that receives every line as well, truncated at start. */
  readonly logFile?: string;
}

/** Starts one process of the stack and follows its output. */
export function startUnitProcess(options: UnitProcessOptions): UnitProcess {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C in the terminal reaches only the
    // launcher, which then stops the units in order (gateway first).
    detached: true,
  });
  const lines: string[] = [];
  const log: WriteStream | undefined = options.logFile
    ? createWriteStream(options.logFile, { flags: 'w' })
    : undefined;
  let readyLine: ReadyLine | undefined;
  const readyListeners = new Set<(line: ReadyLine) => void>();

  const keep = (line: string): void => {
    lines.push(line);
    if (lines.length > keptLines) lines.splice(0, lines.length - keptLines);
    log?.write(`${line}\n`);
  };
  const follow = (stream: Readable, isStdout: boolean): void => {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      keep(line);
      if (!isStdout || readyLine) return;
      const ready = parseReadyLine(line);
      if (!ready) return;
      readyLine = ready;
      readyListeners.forEach((listener) => listener(ready));
    });
  };
  follow(child.stdout, true);
  follow(child.stderr, false);

  let exit: ProcessExit | undefined;
  // 'close' comes after 'exit' once stdout and stderr are drained, so the
  // last lines of a crash are in `lines` by then. It also follows the
  // 'error' of a process that could not be spawned at all.
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code, signal) => {
      exit = { code, signal };
      log?.end();
      resolve(exit);
    });
  });
  child.on('error', (error) => keep(`${options.name}: ${error.message}`));

  const lastLines = (count: number): string[] => lines.slice(-count);

  return {
    name: options.name,
    pid: child.pid,
    output: () => lines.join('\n'),
    lastLines,
    exited,
    exit: () => exit,
    waitUntilReady(timeoutMs) {
      if (readyLine) return Promise.resolve(readyLine);
      return new Promise<ReadyLine>((resolve, reject) => {
        const settle = (): void => {
          clearTimeout(timer);
          readyListeners.delete(onReady);
        };
        const onReady = (line: ReadyLine): void => {
          settle();
          resolve(line);
        };
        const timer = setTimeout(() => {
          settle();
          reject(new UnitStartError(options.name, `printed no ready line within ${timeoutMs} ms`, lastLines(20)));
        }, timeoutMs);
        readyListeners.add(onReady);
        void exited.then((processExit) => {
          if (readyLine) return;
          settle();
          reject(new UnitStartError(options.name, `${describeExit(processExit)} before it was ready`, lastLines(20)));
        });
      });
    },
    async stop(graceMs) {
      if (exit) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const processExit = await exited;
      clearTimeout(timer);
      return processExit;
    },
    kill() {
      if (!exit) child.kill('SIGKILL');
    },
  };
}
