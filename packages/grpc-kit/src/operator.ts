import { userInfo } from 'node:os';

/**
 * The person an operator's tool acts for (docs/operations.md, "Audit"):
 * `latchkey-admin` and `jobs dlq` name them in their audit entries, beside
 * the machine identity that called. It travels in the `latchkey-operator`
 * metadata of a gRPC call (metadataKeys.operator) as percent-encoded UTF-8,
 * since gRPC metadata values are ASCII; a plain ASCII name without `%`
 * reads the same encoded or not.
 */
export const OPERATOR_MAX_LENGTH = 128;

/** Why `value` cannot name an operator, or undefined when it can. */
export function operatorProblem(value: string): string | undefined {
  if (value.trim() === '') return 'must name the person at the keyboard';
  if (value.length > OPERATOR_MAX_LENGTH) return `must be at most ${OPERATOR_MAX_LENGTH} characters`;
  // Audit entries are printed in tables and logs: one line, nothing a terminal would act on.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(value)) return 'must be one line of printable text';
  return undefined;
}

export function encodeOperator(operator: string): string {
  return encodeURIComponent(operator);
}

/** The operator a caller sent; a value that is not valid percent-encoding is kept as it came. */
export function decodeOperator(sent: string): string {
  try {
    return decodeURIComponent(sent);
  } catch {
    return sent;
  }
}

/**
 * The operator of a command-line tool: `--operator` when given, else the
 * name of the OS user running it. Throws when neither names anyone: the
 * images run as a numeric user with no name (`kubectl exec` does not say
 * who typed the command), so there `--operator` is required.
 */
export function operatorOfCommandLine(flag: string | undefined): string {
  if (flag !== undefined) {
    const problem = operatorProblem(flag);
    if (problem !== undefined) throw new Error(`--operator ${problem}`);
    return flag.trim();
  }
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    throw new Error(`--operator is required: this system's user (uid ${process.getuid?.() ?? '?'}) has no name`);
  }
  if (operatorProblem(name) !== undefined) throw new Error(`--operator is required: this system's user name cannot name an operator`);
  return name;
}
