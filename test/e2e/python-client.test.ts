import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * The generated Python client (clients/python) against the real stack:
 * a service written in Python checks a session (docs/integration.md) and
 * a permission in an organisation (docs/organisations.md).
 * Debian's python3 with python3-grpcio and python3-protobuf (.ci/run).
 */
const root = path.resolve(__dirname, '../..');
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack('python');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

/** Runs an example of clients/python/examples with Debian's python3: answers the JSON line it printed. */
async function runExample(example: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [path.join(root, 'clients/python/examples', example), ...args], {
    env: { PATH: process.env.PATH, PYTHONPATH: path.join(root, 'clients/python'), PYTHONDONTWRITEBYTECODE: '1' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

function introspectFromPython(token: string): Promise<Record<string, unknown>> {
  return runExample('introspect.py', `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`, token);
}

it('checks a live session and an unknown token with the generated Python client', async () => {
  const account = await signedInAccount(stack, 'pythonista');
  expect(await introspectFromPython(account.client.sessionCookie!)).toEqual({
    active: true,
    user_id: account.id,
    session_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    authentication_methods: ['pwd'],
    second_factor: false,
    expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  expect(await introspectFromPython('A'.repeat(43))).toEqual({ active: false });
});

it('checks a permission in an organisation with the generated Python client: a custom role’s wildcard, the owner, an outsider', async () => {
  const owner = await signedInAccount(stack, 'pyowner');
  const member = await signedInAccount(stack, 'pymember');
  const outsider = await signedInAccount(stack, 'pyoutsider');
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Python Inc.', slug: `py-${owner.id.slice(0, 8)}` });
  expect(created.status).toBe(201);
  const organizationId = created.body.id;
  expect((await owner.client.post(`/v0/orgs/${organizationId}/roles`, { name: 'billing', permissions: ['invoices:*'] })).status).toBe(201);
  expect((await owner.client.post(`/v0/orgs/${organizationId}/invitations`, { email: member.email, role: 'billing' })).status).toBe(201);
  const token = await mailedToken(stack, member.email, 'invitations/accept');
  expect((await member.client.post('/v0/invitations/accept', { token })).status).toBe(200);

  const address = `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`;
  const check = (userId: string, permission: string) => runExample('check_permission.py', address, userId, organizationId, permission);
  expect(await check(member.id, 'invoices:refund')).toEqual({ allowed: true, role: 'billing' });
  expect(await check(member.id, 'members:manage')).toEqual({ allowed: false, role: 'billing' });
  expect(await check(owner.id, 'reports:export')).toEqual({ allowed: true, role: 'owner' });
  expect(await check(outsider.id, 'invoices:refund')).toEqual({ allowed: false, role: '' });
});
