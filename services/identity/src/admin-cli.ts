import { parseArgs } from 'node:util';
import { adminV1 } from '@latchkey/contracts';
import { loadConfig } from '@latchkey/config';
import { adminCliConfigSchema } from './admin-cli-config';
import { createServiceClient, operatorOfCommandLine, startRequestContext } from '@latchkey/grpc-kit';
import { createLogger } from '@latchkey/telemetry';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * `latchkey-admin`, the admin API for people (docs/integration.md, "The
 * latchkey-admin command"): in the identity image for `kubectl exec`, and as
 * `pnpm admin` against `pnpm stack`.
 */
const USAGE = `usage: latchkey-admin [--json] [--operator <who>] <command>
  users find --id <id> | --email <email> | --handle <handle>
  users list [--page-size N] [--page-token T]
  users disable <id> [--reason R]
  users enable <id>
  users reset-password <id>
  users delete <id>
  sessions revoke-all <id>
  audit [--user <id>] [--page-size N] [--page-token T]
  clients create <entry.json>
  clients list
  clients update <client_id> <entry.json>
  clients delete <client_id>
  clients rotate-secret <client_id>
  orgs list [--page-size N] [--page-token T]
  orgs create --name <name> --slug <slug> --owner <user id>
  orgs add-member <org id> <user id> [--role R]   (default role: member)
  orgs remove-member <org id> <user id>
  orgs delete <org id>
  orgs sso-enforcement <org id> on|off   (off: the break-glass when its IdP locks its people out)
--operator names you in the audit log (default: the OS user running this;
required where that user has no name, as inside the images).
`;

class UsageError extends Error {}

type Admin = ReturnType<typeof createServiceClient<typeof adminV1.AdminServiceService>>;
type Row = Record<string, string>;

const time = (value: Date | undefined) => value?.toISOString() ?? '';

function clientRow(client: adminV1.Client | undefined, secret = ''): Row {
  if (!client) return {};
  const entry = JSON.parse(client.entryJson) as { client_name?: string; token_endpoint_auth_method?: string };
  return {
    client_id: client.clientId,
    name: entry.client_name ?? '',
    auth: entry.token_endpoint_auth_method ?? '',
    created: time(client.createdAt),
    updated: time(client.updatedAt),
    ...(secret === '' ? {} : { client_secret: secret }),
  };
}

/** An entry file's JSON (docs/oidc.md, "Clients"); `-` reads it from standard input. */
function entryFile(file: string | undefined): string {
  if (!file) throw new UsageError('the command needs a client entry file (JSON), or - for standard input');
  return readFileSync(file === '-' ? 0 : file, 'utf8');
}

function organizationRow(organization: adminV1.AdminOrganization | undefined): Row {
  if (!organization) return {};
  return {
    id: organization.id,
    slug: organization.slug,
    name: organization.name,
    members: String(organization.memberCount),
    sso_enforced: organization.ssoEnforced ? 'yes' : 'no',
    created: time(organization.createdAt),
  };
}

function memberRow(member: adminV1.OrganizationMember | undefined): Row {
  if (!member) return {};
  return { organization: member.organizationId, user: member.userId, role: member.role, source: member.source, joined: time(member.joinedAt) };
}

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
      name: { type: 'string' },
      slug: { type: 'string' },
      owner: { type: 'string' },
      role: { type: 'string', default: 'member' },
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
  const needOrganizationAndUser = (): [string, string] => {
    const userId = positionals[3];
    if (!target || !userId) throw new UsageError(`${group} ${action} needs an organisation id and an account id`);
    return [target, userId];
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
          ...(entry.clientId === '' ? {} : { client: entry.clientId }),
          ...(entry.organizationId === '' ? {} : { organization: entry.organizationId }),
          operator: entry.operator,
          caller: entry.caller,
          reason: entry.reason,
        })),
        next: answer.nextPageToken,
      };
    }
    case 'clients create': {
      const answer = await admin.createClient({ entryJson: entryFile(target) }, context());
      return { rows: [clientRow(answer.client, answer.clientSecret)] };
    }
    case 'clients list':
      return { rows: (await admin.listClients({}, context())).clients.map((client) => clientRow(client)) };
    case 'clients update': {
      if (!target) throw new UsageError('clients update needs a client id');
      const answer = await admin.updateClient({ clientId: target, entryJson: entryFile(positionals[3]) }, context());
      return { rows: [clientRow(answer.client, answer.clientSecret)] };
    }
    case 'clients delete':
      if (!target) throw new UsageError('clients delete needs a client id');
      await admin.deleteClient({ clientId: target }, context());
      return { rows: [{ client_id: target, done: 'deleted' }] };
    case 'clients rotate-secret': {
      if (!target) throw new UsageError('clients rotate-secret needs a client id');
      const answer = await admin.rotateClientSecret({ clientId: target }, context());
      return { rows: [{ client_id: target, client_secret: answer.clientSecret }] };
    }
    case 'orgs list': {
      const answer = await admin.listOrganizations(page, context());
      return { rows: answer.organizations.map(organizationRow), next: answer.nextPageToken };
    }
    case 'orgs create': {
      const { name, slug, owner } = values;
      if (name === undefined || slug === undefined || owner === undefined) throw new UsageError('orgs create needs --name, --slug and --owner');
      return { rows: [organizationRow((await admin.createOrganization({ name, slug, ownerUserId: owner }, context())).organization)] };
    }
    case 'orgs add-member': {
      const [organizationId, userId] = needOrganizationAndUser();
      return { rows: [memberRow((await admin.addOrganizationMember({ organizationId, userId, role: values.role }, context())).member)] };
    }
    case 'orgs remove-member': {
      const [organizationId, userId] = needOrganizationAndUser();
      await admin.removeOrganizationMember({ organizationId, userId }, context());
      return { rows: [{ organization: organizationId, user: userId, done: 'removed' }] };
    }
    case 'orgs sso-enforcement': {
      const setting = positionals[3];
      if (!target || (setting !== 'on' && setting !== 'off')) throw new UsageError('orgs sso-enforcement needs an organisation id and on or off');
      const answer = await admin.setOrganizationSsoEnforced({ organizationId: target, ssoEnforced: setting === 'on' }, context());
      return { rows: [organizationRow(answer.organization)] };
    }
    case 'orgs delete':
      if (!target) throw new UsageError('orgs delete needs an organisation id');
      await admin.deleteOrganization({ organizationId: target }, context());
      return { rows: [{ organization: target, done: 'deleted' }] };
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
  const config = loadConfig(adminCliConfigSchema, process.env);
  const address = config.ADMIN_GRPC_ADDRESS ?? `127.0.0.1:${config.ADMIN_GRPC_PORT}`;
  const tls =
    config.ADMIN_TLS_CERT_FILE === undefined
      ? {}
      : { certFile: config.ADMIN_TLS_CERT_FILE, keyFile: config.ADMIN_TLS_KEY_FILE, caFile: config.ADMIN_TLS_CA_FILE ?? config.GRPC_TLS_CA_FILE };
  const admin = createServiceClient(adminV1.AdminServiceService, address, { tls });
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
