import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { childScript } from './child-scripts';
import type { WatchedProcess } from './process-usage';

/**
 * Scenario-scoped CPU profiles of the stack's units: the variables that load
 * cpu-profiler-preload.js into each unit, and the signals that start and
 * stop its profiler around a measured run.
 */

export function profilerEnvironment(directory: string, nodeOptions = ''): Record<string, string> {
  return {
    NODE_OPTIONS: `${nodeOptions} --require ${childScript('cpu-profiler-preload.js')}`.trim(),
    BENCH_CPU_PROFILE_DIR: directory,
  };
}

export class CpuProfiles {
  /** Profiles written so far per pid: the preload numbers its files 1, 2, … */
  private readonly written = new Map<number, number>();

  constructor(private readonly directory: string) {}

  async start(processes: readonly WatchedProcess[]): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    for (const p of processes) process.kill(p.pid, 'SIGUSR2');
    // The profiler starts asynchronously in each unit; a moment keeps the run's first requests in the profile.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  /** Stops each unit's profiler and names its file `<label>-<unit>.cpuprofile`; answers the files written. */
  async stop(processes: readonly WatchedProcess[], label: string): Promise<string[]> {
    for (const p of processes) process.kill(p.pid, 'SIGUSR2');
    const files: string[] = [];
    for (const p of processes) {
      const count = (this.written.get(p.pid) ?? 0) + 1;
      this.written.set(p.pid, count);
      const written = path.join(this.directory, `${p.pid}.${count}.cpuprofile`);
      const deadline = Date.now() + 10_000;
      while (!existsSync(written) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!existsSync(written)) continue;
      const named = path.join(this.directory, `${label}-${p.name}.cpuprofile`);
      await rename(written, named);
      files.push(named);
    }
    return files;
  }
}
