import { parseArgs } from 'node:util';
import { z } from 'zod';
import { adminV1 } from '@latchkey/contracts';
import { env, grpcServiceVariables, loadConfig } from '@latchkey/config';
import { createServiceClient, operatorOfCommandLine, startRequestContext, tlsFilesOf } from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';
import { randomUUID } from 'node:crypto';

/**
 * `latchkey-admin`, the admin API for people (docs/integration.md, "The
 * latchkey-admin command"): in the identity image for `kubectl exec`, and as
 * `pnpm admin` against `pnpm stack`.
 */
const configSchema = z.object({
  GRPC_PORT: env.port(50051),
  /** Where admin.v1 is served; default this pod's own identity. */
  ADMIN_GRPC_ADDRESS: z.string().optional(),
  GRPC_TLS_CERT_FILE: grpcServiceVariables.GRPC_TLS_CERT_FILE,
  GRPC_TLS_KEY_FILE: grpcServiceVariables.GRPC_TLS_KEY_FILE,
  GRPC_TLS_CA_FILE: grpcServiceVariables.GRPC_TLS_CA_FILE,
});

const USAGE = `usage: latchkey-admin [--json] [--operator <who>] <command>
  users find --id <id> | --email <email> | --handle <handle>
  users list [--page-size N] [--page-token T]
  users disable <id> [--reason R]
  users enable <id>
  users reset-password <id>
  users delete <id>
  sessions revoke-all <id>
  audit [--user <id>] [--page-size N] [--page-token T]
--operator names you in the audit log (default: the OS user running this;
required where that user has no name, as inside the images).
`;

class UsageError extends Error {}

type Admin = ReturnType<typeof createServiceClient<typeof adminV1.AdminServiceService>>;
type Row = Record<string, string>;

const time = (value: Date | undefined) => value?.toISOString() ?? '';

function userRow(user: adminV1.User | undefined): Row {
  if (!user) return {};
  return {
    id: user.id,
    handle: user.handle,
    email: user.email,
    verified: time(user.emailVerifiedAt),
    password: user.hasPassword ? 'yes' : 'no',
    created: time(user.createdAt),
    disabled: time(user.disabledAt),
    reason: user.disabledReason,
  };
}

/** Runs one command; answers the rows to print and, for a page, the token of the next. */
async function run(admin: Admin, args: readonly string[], call: () => ReturnType<typeof startRequestContext>): Promise<{ rows: Row[]; next?: string }> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      id: { type: 'string' },
      email: { type: 'string' },
      handle: { type: 'string' },
      reason: { type: 'string', default: '' },
      user: { type: 'string', default: '' },
      'page-size': { type: 'string', default: '0' },
      'page-token': { type: 'string', default: '' },
    },
  });
  const [group, action, target] = positionals;
  const context = () => call().context;
  const page = { pageSize: Number(values['page-size']), pageToken: values['page-token'] };
  const needTarget = (): string => {
    if (!target) throw new UsageError(`${group} ${action} needs an account id`);
    return target;
  };
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'users find': {
      const key = values.id !== undefined ? { id: values.id } : values.email !== undefined ? { email: values.email } : values.handle !== undefined ? { handle: values.handle } : undefined;
      if (!key) throw new UsageError('users find needs --id, --email or --handle');
      return { rows: [userRow((await admin.findUser(key, context())).user)] };
    }
    case 'users list': {
      const answer = await admin.listUsers(page, context());
      return { rows: answer.users.map(userRow), next: answer.nextPageToken };
    }
    case 'users disable':
      return { rows: [userRow((await admin.disableUser({ userId: needTarget(), reason: values.reason }, context())).user)] };
    case 'users enable':
      return { rows: [userRow((await admin.enableUser({ userId: needTarget() }, context())).user)] };
    case 'users reset-password':
      await admin.sendPasswordReset({ userId: needTarget() }, context());
      return { rows: [{ id: needTarget(), done: 'reset mail queued' }] };
    case 'users delete':
      await admin.deleteUser({ userId: needTarget() }, context());
      return { rows: [{ id: needTarget(), done: 'deleted' }] };
    case 'sessions revoke-all':
      await admin.revokeAllSessions({ userId: needTarget() }, context());
      return { rows: [{ id: needTarget(), done: 'sessions ended' }] };
    case 'audit': {
      const answer = await admin.listAuditLog({ userId: values.user, ...page }, context());
      return {
        rows: answer.entries.map((entry) => ({
          at: time(entry.at),
          action: entry.action,
          user: entry.userId,
          operator: entry.operator,
          caller: entry.caller,
          reason: entry.reason,
        })),
        next: answer.nextPageToken,
      };
    }
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
  }
}

function table(rows: readonly Row[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  if (columns.length === 0) return '(none)\n';
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => `${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
  return line(columns) + rows.map((row) => line(columns.map((column) => row[column] ?? ''))).join('');
}

/** Takes out the options every command shares: `--json` and `--operator <who>` (or `--operator=<who>`). */
function commonOptions(argv: readonly string[]): { json: boolean; operator: string | undefined; args: string[] } {
  const args: string[] = [];
  let json = false;
  let operator: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg.startsWith('--operator=')) operator = arg.slice('--operator='.length);
    else if (arg === '--operator') {
      if (i + 1 >= argv.length) throw new UsageError('--operator needs a value');
      i += 1;
      operator = argv[i];
    } else args.push(arg);
  }
  return { json, operator, args };
}

async function main(argv: readonly string[]): Promise<number> {
  let options: ReturnType<typeof commonOptions>;
  let operator: string;
  try {
    options = commonOptions(argv);
    if (options.args.length === 0 || options.args.includes('--help')) {
      process.stdout.write(USAGE);
      return options.args.length === 0 ? 2 : 0;
    }
    operator = operatorOfCommandLine(options.operator);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { json, args } = options;
  const config = loadConfig(configSchema, process.env);
  const address = config.ADMIN_GRPC_ADDRESS ?? `127.0.0.1:${config.GRPC_PORT}`;
  const admin = createServiceClient(adminV1.AdminServiceService, address, { tls: tlsFilesOf(config) });
  const logger = createLogger({ service: 'latchkey-admin', level: 'silent' });
  try {
    const { rows, next } = await run(admin, args, () =>
      startRequestContext({ requestId: randomUUID(), logger, deadline: Date.now() + 10_000, operator }),
    );
    if (json) for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
    else process.stdout.write(table(rows));
    if (next) process.stderr.write(`more: --page-token ${next}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  } finally {
    admin.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    process.stderr.write(`${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
