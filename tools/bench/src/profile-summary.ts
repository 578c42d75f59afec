import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * Reads V8 CPU profiles (`node --cpu-prof`, see `pnpm bench --cpu-prof`)
 * and answers where the samples fell: self time by package and by function.
 * Self time by package is what shows which dependency a hot path spends its
 * CPU in (the logger, the gRPC library, validation, …).
 *
 *   node tools/bench/dist/profile-summary.js <profile-or-directory> [--top 20]
 */

const profileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  startTime: z.number(),
  endTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
export type CpuProfile = z.infer<typeof profileSchema>;

export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  readonly percent: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly byPackage: readonly SelfTime[];
  readonly byFunction: readonly SelfTime[];
}

/**
 * The package a script belongs to: `pino` for
 * `…/node_modules/.pnpm/pino@9/node_modules/pino/lib/tools.js`, `node:` for
 * Node's own code, the workspace folder (`gateway`, `packages/grpc-kit`) for
 * ours, and V8's pseudo-frames (`(garbage collector)`, `(idle)`) as named.
 */
export function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  const workspace = /\/(gateway|services\/[^/]+|packages\/[^/]+|tools\/[^/]+)\//.exec(url);
  return workspace?.[1] ?? url;
}

function ranked(totals: Map<string, number>, totalMs: number, top: number): SelfTime[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), percent: totalMs > 0 ? Math.round((ms / totalMs) * 1000) / 10 : 0 }));
}

/** Ids of the nodes at or below a frame of `script`, found from the roots down. */
function nodesUnder(profile: CpuProfile, script: string): Set<number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const under = new Set<number>();
  const mark = (id: number): void => {
    if (under.has(id)) return;
    under.add(id);
    for (const child of byId.get(id)?.children ?? []) mark(child);
  };
  for (const node of profile.nodes) if (node.callFrame.url.endsWith(script)) mark(node.id);
  return under;
}

/**
 * Self time of every sample, summed by package and by function. `(idle)`
 * is left out of the total, and so is the profiler's own start and stop
 * (cpu-profiler-preload.js), which would otherwise show as a hot spot.
 */
export function summarizeProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const profiler = nodesUnder(profile, 'cpu-profiler-preload.js');
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((nodeId, index) => {
    const frame = nodes.get(nodeId);
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    if (!frame || frame.functionName === '(idle)' || profiler.has(nodeId)) return;
    totalMs += ms;
    const pkg = packageOf(frame.url, frame.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const where = frame.url === '' ? '' : ` ${path.basename(frame.url)}:${frame.lineNumber + 1}`;
    const fn = `${frame.functionName || '(anonymous)'}${where} [${pkg}]`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  });
  return {
    totalMs: Math.round(totalMs),
    byPackage: ranked(byPackage, totalMs, top),
    byFunction: ranked(byFunction, totalMs, top),
  };
}

export async function readProfile(file: string): Promise<CpuProfile> {
  return profileSchema.parse(JSON.parse(await readFile(file, 'utf8')) as unknown);
}

function formatSummary(file: string, summary: ProfileSummary): string {
  const row = (entry: SelfTime): string =>
    `  ${String(entry.ms).padStart(7)} ms ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}`;
  return [
    `${file}: ${summary.totalMs} ms of CPU (idle excluded)`,
    ' by package:',
    ...summary.byPackage.map(row),
    ' by function:',
    ...summary.byFunction.map(row),
    '',
  ].join('\n');
}

async function main(args: readonly string[]): Promise<void> {
  const topIndex = args.indexOf('--top');
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 20;
  const target = args.find((arg, index) => !arg.startsWith('--') && index !== topIndex + 1);
  if (!target || !Number.isInteger(top) || top <= 0) {
    process.stderr.write('usage: node tools/bench/dist/profile-summary.js <profile-or-directory> [--top 20]\n');
    process.exit(2);
  }
  const files = (await stat(target)).isDirectory()
    ? (await readdir(target)).filter((name) => name.endsWith('.cpuprofile')).map((name) => path.join(target, name))
    : [target];
  for (const file of files.sort()) {
    process.stdout.write(`${formatSummary(file, summarizeProfile(await readProfile(file), top))}\n`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
