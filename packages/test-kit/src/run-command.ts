import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one of our command-line tools (`node dist/<tool>.js ...`) to its end,
 * as an operator would, with only `env` for its environment; answers its
 * exit code and what it printed, whatever the code.
 */
export async function runNodeScript(script: string, args: readonly string[], env: Record<string, string | undefined>): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
