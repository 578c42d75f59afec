import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** A process whose CPU time and memory the bench reads, named for the report. */
export interface WatchedProcess {
  readonly name: string;
  /** `stack` processes are ours (their CPU is summed per request); `baseline` and `harness` are reported beside them. */
  readonly role: 'stack' | 'baseline' | 'peer' | 'harness';
  readonly pid: number;
}

export interface MemoryUsage {
  /** VmHWM: the peak resident set size of the process's life so far. */
  readonly peakRssBytes: number;
  /** VmRSS: the resident set size now. */
  readonly rssBytes: number;
}

/**
 * Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ).
 * It is 100 on every Linux we run on; `getconf` says so for certain.
 */
export function clockTicksPerSecond(): number {
  try {
    const answer = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(answer) && answer > 0 ? answer : 100;
  } catch {
    return 100;
  }
}

/**
 * utime + stime from the text of /proc/<pid>/stat. The command name (field
 * 2) is in parentheses and may itself hold spaces and parentheses, so
 * fields are counted from the last `)`: state is field 3, utime 14, stime 15.
 */
export function parseCpuTicks(stat: string): number {
  const end = stat.lastIndexOf(')');
  if (end < 0) throw new Error('not a /proc/<pid>/stat line');
  const fields = stat.slice(end + 2).trim().split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('no utime/stime in /proc/<pid>/stat');
  return utime + stime;
}

/** VmHWM and VmRSS from the text of /proc/<pid>/status (both in kB there). */
export function parseMemoryUsage(status: string): MemoryUsage {
  const kilobytes = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
    if (!match?.[1]) throw new Error(`no ${field} in /proc/<pid>/status`);
    return Number(match[1]) * 1024;
  };
  return { peakRssBytes: kilobytes('VmHWM'), rssBytes: kilobytes('VmRSS') };
}

/** CPU time the process has used so far, in clock ticks; undefined once it has exited. */
export async function readCpuTicks(pid: number): Promise<number | undefined> {
  try {
    return parseCpuTicks(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export async function readMemoryUsage(pid: number): Promise<MemoryUsage | undefined> {
  try {
    return parseMemoryUsage(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** CPU ticks of each process at one moment, to subtract from a later reading. */
export type CpuReading = ReadonlyMap<number, number>;

export async function readCpu(processes: readonly WatchedProcess[]): Promise<CpuReading> {
  const entries = await Promise.all(processes.map(async (p) => [p.pid, (await readCpuTicks(p.pid)) ?? 0] as const));
  return new Map(entries);
}

/** Milliseconds of CPU each process used between two readings. */
export function cpuMillisecondsBetween(
  processes: readonly WatchedProcess[],
  before: CpuReading,
  after: CpuReading,
  ticksPerSecond: number,
): Record<string, number> {
  const used: Record<string, number> = {};
  for (const p of processes) {
    const ticks = (after.get(p.pid) ?? 0) - (before.get(p.pid) ?? 0);
    used[p.name] = (Math.max(0, ticks) * 1000) / ticksPerSecond;
  }
  return used;
}

/**
 * Waits until the processes together use less than `maxCpuPercent` of one
 * core over a `windowMs` window (work left over from seeding or the scenario
 * before, such as index jobs, would otherwise be measured with the next
 * one). Answers whether they went quiet before `timeoutMs`.
 */
export async function waitUntilIdle(
  processes: readonly WatchedProcess[],
  settings: { ticksPerSecond: number; windowMs?: number; maxCpuPercent?: number; timeoutMs: number },
): Promise<boolean> {
  const windowMs = settings.windowMs ?? 300;
  const maxCpuPercent = settings.maxCpuPercent ?? 10;
  const deadline = Date.now() + settings.timeoutMs;
  let before = await readCpu(processes);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = await readCpu(processes);
    const used = Object.values(cpuMillisecondsBetween(processes, before, after, settings.ticksPerSecond));
    const total = used.reduce((sum, ms) => sum + ms, 0);
    if ((total / windowMs) * 100 < maxCpuPercent) return true;
    before = after;
  }
  return false;
}
