import path from 'node:path';
import { repositoryRoot } from '@latchkey/stack';
import { parseCliOptions, usage } from './cli-options';
import { formatReport, writeReport } from './report';
import { defaultBenchOptions, runBench } from './run-bench';

/** `pnpm bench`: the hot paths against bare baselines, measured in the same run (tools/bench/README.md). */

async function main(args: readonly string[], signal: AbortSignal): Promise<number> {
  let options;
  try {
    options = parseCliOptions(args, path.join(repositoryRoot, 'bench', 'results'));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(usage);
    return 0;
  }
  const progress = options.jsonOnly ? undefined : (message: string): void => void process.stderr.write(`bench: ${message}\n`);
  const report = await runBench({
    ...options,
    createRate: defaultBenchOptions.createRate,
    idleTimeoutMs: defaultBenchOptions.idleTimeoutMs,
    searchRepeats: defaultBenchOptions.searchRepeats,
    ...(options.cpuProfileDir ? { cpuProfileDir: options.cpuProfileDir } : {}),
    ...(progress ? { onProgress: progress } : {}),
    signal,
  });
  const file = await writeReport(report, options.resultsDir);
  if (options.jsonOnly) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${formatReport(report)}\n\nwritten to ${path.relative(process.cwd(), file) || file}\n`);
  }
  return 0;
}

// The stack's units run in their own process group, out of Ctrl-C's reach:
// the first Ctrl-C aborts the run, whose clean-up stops and removes them; a
// second leaves at once (the launcher then kills the units on exit).
const controller = new AbortController();
process.on('SIGINT', () => {
  if (controller.signal.aborted) process.exit(130);
  process.stderr.write('bench: interrupted; stopping the stack (Ctrl-C again to leave now)\n');
  controller.abort(new Error('interrupted'));
});

main(process.argv.slice(2), controller.signal).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
