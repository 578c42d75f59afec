import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '@latchkey/config';
import { BackingServicesUnreachableError } from './backing-services';
import { launchStack, repositoryRoot, type RunningStack } from './launch-stack';
import { formatStackEvent, formatStackSummary, formatUnreachableHint } from './stack-report';
import { UnitStartError } from './unit-process';

/**
 * `pnpm stack`: the whole stack on this machine with fixed ports, until
 * Ctrl-C (exit 0) or until a unit dies (exit 1).
 */

const usage = `usage: pnpm stack [--units identity,jobs,...]

Runs every unit (or those named) with local defaults for what the
environment leaves unset; see tools/stack/README.md.
`;

const print = (text: string): void => void process.stdout.write(`${text}\n`);
const printError = (text: string): void => void process.stderr.write(`${text}\n`);

function describeFailure(error: unknown): string {
  if (error instanceof BackingServicesUnreachableError) return formatUnreachableHint(error.unreachable);
  if (error instanceof ConfigError || error instanceof UnitStartError) return error.message;
  // Plain Errors say what is wrong with the setup (not built, unknown unit,
  // PostgreSQL refusing the login); a TypeError and the like is a bug, and
  // its stack is what helps.
  if (error instanceof Error) return error.constructor === Error ? error.message : (error.stack ?? error.message);
  return String(error);
}

/** The units named by `--units a,b`; undefined for all. */
function readArguments(args: readonly string[]): { units: string[] | undefined; help: boolean } {
  const { values } = parseArgs({
    args: [...args],
    options: { units: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  const units = values.units
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  return { units, help: values.help === true };
}

async function runStack(units: readonly string[] | undefined): Promise<number> {
  const logDir = path.join(repositoryRoot, '.data', 'logs');
  const controller = new AbortController();
  let stopCode: number | undefined;
  let wake = (): void => undefined;
  const stopRequested = new Promise<void>((resolve) => (wake = resolve));

  const requestStop = (code: number, message: string): void => {
    if (stopCode !== undefined) return;
    stopCode = code;
    print(message);
    // While the stack starts, this makes launchStack stop what it started and reject.
    controller.abort(new Error(message));
    wake();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopCode === undefined) {
      requestStop(0, `${signal}: stopping (again to kill at once)`);
      return;
    }
    // A second Ctrl-C: exiting kills the units (launchStack's exit hook sends SIGKILL).
    printError('killing the stack');
    process.exit(1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  let stack: RunningStack;
  try {
    stack = await launchStack({
      ...(units ? { units } : {}),
      logDir,
      signal: controller.signal,
      onEvent(event) {
        const line = formatStackEvent(event);
        if (line !== undefined) print(line);
        if (event.type === 'exited' && event.phase === 'running') {
          requestStop(1, `${event.unit} is gone: stopping the stack`);
        }
      },
    });
  } catch (error) {
    if (stopCode !== undefined) return stopCode;
    printError(describeFailure(error));
    return 1;
  }
  if (stopCode === undefined) print(formatStackSummary(stack, logDir));
  await stopRequested;
  await stack.stop();
  return stopCode ?? 0;
}

let cli: ReturnType<typeof readArguments>;
try {
  cli = readArguments(process.argv.slice(2));
} catch (error) {
  printError(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(2);
}
if (cli.help) {
  print(usage);
  process.exit(0);
}
runStack(cli.units).then(
  (code) => process.exit(code),
  (error: unknown) => {
    printError(describeFailure(error));
    process.exit(1);
  },
);
