import { userInfo } from 'node:os';
import path from 'node:path';
import { adminV1 } from '@latchkey/contracts';
import { createTestServiceClient, runNodeScript, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/** admin.v1 as an operator's tool calls it (docs/integration.md, "Administration"). */
const OPERATOR = 'ops-e2e';
let stack: E2eStack;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;

beforeAll(async () => {
  stack = await startE2eStack('admin');
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}`, undefined, {
    operator: OPERATOR,
  });
}, 60_000);

afterAll(async () => {
  admin?.close();
  await stack?.destroy();
});

/** latchkey-admin as an operator runs it: answers its exit code and output. */
function latchkeyAdmin(...args: string[]) {
  const cli = path.resolve(__dirname, '../../services/identity/dist/admin-cli.js');
  return runNodeScript(cli, args, { PATH: process.env.PATH, ADMIN_GRPC_ADDRESS: `127.0.0.1:${stack.processes.get('identity')!.ports.GRPC_PORT}` });
}

describe('account administration', () => {
  it('disables an account: its cookie stops working at once, sign-in answers 403 auth:account_disabled, enabling undoes it', async () => {
    const account = await signedInAccount(stack, 'disabled');
    const { user } = await admin.findUser({ email: account.email });
    await admin.disableUser({ userId: user!.id, reason: 'abuse report 4711' });
    // No waiting: the next request is refused.
    expect((await account.client.get('/v0/users/me')).status).toBe(401);

    const again = new ApiClient(stack.gatewayUrl);
    const refused = await again.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'auth:account_disabled' });
    expect(again.sessionCookie).toBeUndefined();

    await admin.enableUser({ userId: user!.id });
    expect((await again.post('/v0/auth/login', { email: account.email, password: PASSWORD })).status).toBe(200);
    const { entries } = await admin.listAuditLog({ userId: user!.id, pageSize: 10, pageToken: '' });
    expect(entries.map((entry) => [entry.action, entry.reason, entry.operator])).toEqual([
      ['enable_user', '', OPERATOR],
      ['disable_user', 'abuse report 4711', OPERATOR],
      ['find_user', '', OPERATOR],
    ]);
  });

  it('refuses the second step of a sign-in that began before the account was disabled', async () => {
    const account = await signedInAccount(stack, 'midway');
    const setup = totpSetupSchema.parse((await account.client.post('/v0/auth/totp/setup')).body);
    expect((await account.client.post('/v0/auth/totp/enable', { setup_token: setup.setup_token, code: totpCode(setup.secret, -1) })).status).toBe(200);
    const client = new ApiClient(stack.gatewayUrl);
    const challenge = await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect(challenge.body).toMatchObject({ totp_required: true });
    await admin.disableUser({ userId: account.id, reason: '' });
    const verified = await client.post('/v0/auth/totp/verify', { temp_token: challenge.body.temp_token, code: totpCode(setup.secret) });
    // Disabling raised the account's credential epoch: the challenge is dead (docs/api.md, "Second factor (TOTP)").
    expect(verified.body).toMatchObject({ status: 400, code: 'totp:temp_token_invalid' });
    expect(client.sessionCookie).toBeUndefined();
  });

  it('latchkey-admin finds, disables and enables an account, as a table or as JSON', async () => {
    const account = await signedInAccount(stack, 'operated');
    const found = await latchkeyAdmin('users', 'find', '--email', account.email, '--json');
    expect(found.code).toBe(0);
    const row = JSON.parse(found.stdout.trim()) as Record<string, string>;
    expect(row).toMatchObject({ id: account.id, email: account.email, password: 'yes', disabled: '' });

    const disabled = await latchkeyAdmin('users', 'disable', account.id, '--reason', 'spam');
    expect(disabled.code).toBe(0);
    expect(disabled.stdout.split('\n')[0]).toMatch(/^id\s+handle\s+email/);
    expect(disabled.stdout).toContain('spam');
    expect((await account.client.get('/v0/users/me')).status).toBe(401);
    expect((await latchkeyAdmin('users', 'enable', account.id)).code).toBe(0);
    const audit = await latchkeyAdmin('audit', '--user', account.id, '--json');
    expect(audit.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { action: string }).action)).toEqual(['enable_user', 'disable_user', 'find_user']);
  });

  it('latchkey-admin names the person in the audit log: --operator, or the OS user running it', async () => {
    const account = await signedInAccount(stack, 'named');
    expect((await latchkeyAdmin('--operator', 'Zoë Ångström', 'users', 'disable', account.id, '--reason', 'fraud')).code).toBe(0);
    expect((await latchkeyAdmin('users', 'enable', account.id, '--operator=ada@ops.example')).code).toBe(0);
    expect((await latchkeyAdmin('users', 'find', '--id', account.id)).code).toBe(0);

    const audit = await latchkeyAdmin('audit', '--user', account.id, '--json');
    const rows = audit.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    expect(rows.map((row) => [row.action, row.operator, row.caller])).toEqual([
      ['find_user', userInfo().username, 'plaintext'],
      ['enable_user', 'ada@ops.example', 'plaintext'],
      ['disable_user', 'Zoë Ångström', 'plaintext'],
    ]);
    const table = await latchkeyAdmin('audit', '--user', account.id);
    expect(table.stdout.split('\n')[0]).toMatch(/^at\s+action\s+user\s+operator\s+caller\s+reason$/);
    // That table was a read of the account's audit, and is in it now.
    expect((await admin.listAuditLog({ userId: account.id, pageSize: 1, pageToken: '' })).entries[0]).toMatchObject({ action: 'list_audit_log', operator: userInfo().username });

    const refused = await latchkeyAdmin('--operator', '', 'users', 'find', '--id', account.id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--operator must name the person at the keyboard/);
  });

  it('latchkey-admin says what went wrong: usage, and the API error code', async () => {
    const usage = await latchkeyAdmin('users', 'frobnicate');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown command: users frobnicate[\s\S]*usage: latchkey-admin/);
    const missing = await latchkeyAdmin('users', 'find', '--email', 'nobody@example.com');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^user:not_found: /);
  });
});
