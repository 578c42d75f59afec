import { userInfo } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { adminV1, eventsV1 } from '@latchkey/contracts';
import { topology } from '@latchkey/job-streams';
import { createTestServiceClient, runNodeScript, testNatsUrl, waitFor, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient } from '../support/api-client';
import { PASSWORD, newAccount, signedInAccount } from '../support/accounts';
import { totpCode } from '../support/authenticator';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { totpSetupSchema } from '../../gateway/src/totp/totp-schemas';

/** admin.v1 as an operator's tool calls it (docs/integration.md, "Administration"). */
const OPERATOR = 'ops-e2e';
let stack: E2eStack;
let admin: TestServiceClient<typeof adminV1.AdminServiceService>;
let nats: NatsConnection;

beforeAll(async () => {
  stack = await startE2eStack('admin');
  nats = await connect({ servers: testNatsUrl() });
  admin = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`, undefined, {
    operator: OPERATOR,
  });
}, 60_000);

afterAll(async () => {
  await nats?.close();
  admin?.close();
  await stack?.destroy();
});

/** latchkey-admin as an operator runs it: answers its exit code and output. */
function latchkeyAdmin(...args: string[]) {
  const cli = path.resolve(__dirname, '../../services/identity/dist/admin-cli.js');
  return runNodeScript(cli, args, { PATH: process.env.PATH, ADMIN_GRPC_ADDRESS: `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}` });
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

describe('organisations (docs/organisations.md, "For operators")', () => {
  /** latchkey-admin's JSON rows. */
  async function rowsOf(...args: string[]): Promise<Record<string, string>[]> {
    const run = await latchkeyAdmin('--json', ...args);
    if (run.code !== 0) throw new Error(`latchkey-admin ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);
  }

  /** The payload of an org.* event an operator's change causes. */
  const payloadOf = (event: eventsV1.Event) => event.orgCreated ?? event.orgMemberAdded ?? event.orgMemberRemoved ?? event.orgDeleted;

  /** The org.* events of one organisation on the events stream so far, in order. */
  async function eventsOf(organizationId: string): Promise<eventsV1.Event[]> {
    const prefix = stack.env.NATS_SUBJECT_PREFIX!;
    const consumer = await nats.jetstream().consumers.get(topology(prefix).eventsStream, { filterSubjects: `${prefix}.events.org.>` });
    const events: eventsV1.Event[] = [];
    for (let message = await consumer.next({ expires: 1000 }); message; message = await consumer.next({ expires: 1000 })) {
      events.push(eventsV1.Event.fromJSON(message.json()));
    }
    await consumer.delete();
    return events.filter((event) => payloadOf(event)?.organizationId === organizationId);
  }

  it('latchkey-admin creates an organisation for an owner, adds and removes a member, deletes it: members see each change, each is audited and announced', async () => {
    const owner = await signedInAccount(stack, 'orgowner');
    const member = await signedInAccount(stack, 'orgmember');
    const slug = `ops-${owner.id.slice(0, 8)}`;
    const [created] = await rowsOf('orgs', 'create', '--name', 'Ops Inc.', '--slug', slug, '--owner', owner.id);
    expect(created).toMatchObject({ slug, name: 'Ops Inc.', members: '1' });
    const organizationId = created!.id!;
    expect((await owner.client.get('/v0/orgs')).body).toMatchObject({ items: [{ id: organizationId, slug, role: 'owner' }] });
    expect((await rowsOf('orgs', 'list', '--page-size', '100')).map((row) => row.id)).toContain(organizationId);

    const [added] = await rowsOf('orgs', 'add-member', organizationId, member.id, '--role', 'admin');
    expect(added).toMatchObject({ organization: organizationId, user: member.id, role: 'admin', source: 'admin' });
    expect((await member.client.get(`/v0/orgs/${organizationId}`)).body).toMatchObject({ id: organizationId, role: 'admin' });
    const members = await owner.client.get<{ items: { user: { id: string }; source: string }[] }>(`/v0/orgs/${organizationId}/members`);
    expect(members.body.items.map((item) => [item.user.id, item.source])).toEqual([
      [owner.id, 'admin'],
      [member.id, 'admin'],
    ]);

    expect(await rowsOf('orgs', 'remove-member', organizationId, member.id)).toEqual([{ organization: organizationId, user: member.id, done: 'removed' }]);
    expect((await member.client.get(`/v0/orgs/${organizationId}`)).body).toMatchObject({ code: 'org:not_found' });
    // The organisation keeps its last owner, for an operator too.
    const lastOwner = await latchkeyAdmin('orgs', 'remove-member', organizationId, owner.id);
    expect(lastOwner.code).toBe(1);
    expect(lastOwner.stderr).toMatch(/^org:last_owner: /);

    expect(await rowsOf('orgs', 'delete', organizationId)).toEqual([{ organization: organizationId, done: 'deleted' }]);
    expect((await owner.client.get('/v0/orgs')).body).toEqual({ items: [] });

    const audit = await rowsOf('audit', '--user', member.id);
    expect(audit.filter((row) => row.organization === organizationId).map((row) => [row.action, row.operator])).toEqual([
      ['remove_organization_member', userInfo().username],
      ['add_organization_member', userInfo().username],
    ]);
    const { entries } = await admin.listAuditLog({ userId: '', pageSize: 20, pageToken: '' });
    expect(entries.filter((entry) => entry.organizationId === organizationId).map((entry) => [entry.action, entry.userId])).toEqual([
      ['delete_organization', ''],
      ['remove_organization_member', member.id],
      ['add_organization_member', member.id],
      ['create_organization', owner.id],
    ]);

    const events = await waitFor(async () => {
      const found = await eventsOf(organizationId);
      return found.length >= 6 ? found : undefined;
    }, { description: 'the organisation’s six events' });
    expect(events.map((event) => event.type)).toEqual(['org.created', 'org.member.added', 'org.member.added', 'org.member.removed', 'org.member.removed', 'org.deleted']);
    expect(events.map(payloadOf)).toEqual([
      { organizationId, slug, actorUserId: '' },
      { organizationId, userId: owner.id, role: 'owner', source: 'admin' },
      { organizationId, userId: member.id, role: 'admin', source: 'admin' },
      { organizationId, userId: member.id, reason: 'admin', actorUserId: '' },
      { organizationId, userId: owner.id, reason: 'admin', actorUserId: '' },
      { organizationId, reason: 'admin', actorUserId: '' },
    ]);
  });

  it('holds admin.v1 to the organisation rules, and names the person', async () => {
    const owner = await signedInAccount(stack, 'orgrules');
    const { organization } = await admin.createOrganization({ name: 'Rules', slug: `rules-${owner.id.slice(0, 8)}`, ownerUserId: owner.id });
    const organizationId = organization!.id;
    const nobody = '00000000-0000-4000-8000-000000000000';

    const unverified = newAccount('orgunverified');
    const registered = await new ApiClient(stack.gatewayUrl).post<{ id: string }>('/v0/users', unverified);
    await expect(admin.createOrganization({ name: 'X', slug: `x-${owner.id.slice(0, 8)}`, ownerUserId: registered.body.id })).rejects.toMatchObject({
      code: 'auth:email_not_verified',
    });
    await expect(admin.createOrganization({ name: 'Rules again', slug: organization!.slug, ownerUserId: owner.id })).rejects.toMatchObject({ code: 'org:slug_taken' });
    await expect(admin.createOrganization({ name: 'X', slug: '-bad-', ownerUserId: owner.id })).rejects.toMatchObject({ code: 'validation:invalid_input' });
    await expect(admin.createOrganization({ name: 'X', slug: 'nobodys-org', ownerUserId: nobody })).rejects.toMatchObject({ code: 'user:not_found' });
    await expect(admin.addOrganizationMember({ organizationId, userId: owner.id, role: 'member' })).rejects.toMatchObject({ code: 'org:already_member' });
    await expect(admin.addOrganizationMember({ organizationId, userId: nobody, role: 'member' })).rejects.toMatchObject({ code: 'user:not_found' });
    await expect(admin.addOrganizationMember({ organizationId, userId: registered.body.id, role: 'janitor' })).rejects.toMatchObject({ code: 'org:role_not_found' });
    await expect(admin.addOrganizationMember({ organizationId: nobody, userId: owner.id, role: 'member' })).rejects.toMatchObject({ code: 'org:not_found' });
    await expect(admin.removeOrganizationMember({ organizationId, userId: registered.body.id })).rejects.toMatchObject({ code: 'org:member_not_found' });
    await expect(admin.deleteOrganization({ organizationId: nobody })).rejects.toMatchObject({ code: 'org:not_found' });
    await expect(admin.listOrganizations({ pageSize: 0, pageToken: 'not-a-token' })).rejects.toMatchObject({ code: 'validation:invalid_input' });

    const anonymous = createTestServiceClient(adminV1.AdminServiceService, `127.0.0.1:${stack.processes.get('identity')!.ports.ADMIN_GRPC_PORT}`);
    try {
      await expect(anonymous.deleteOrganization({ organizationId })).rejects.toMatchObject({ code: 'validation:invalid_input' });
    } finally {
      anonymous.close();
    }
    expect((await owner.client.get(`/v0/orgs/${organizationId}`)).status).toBe(200);
  });

  it('pages through the organisations newest first, each once', async () => {
    const owner = await signedInAccount(stack, 'orgpages');
    const made: string[] = [];
    for (const n of [1, 2, 3]) made.push((await admin.createOrganization({ name: `Page ${n}`, slug: `page${n}-${owner.id.slice(0, 8)}`, ownerUserId: owner.id })).organization!.id);
    const seen: adminV1.AdminOrganization[] = [];
    let pageToken = '';
    do {
      const page = await admin.listOrganizations({ pageSize: 2, pageToken });
      seen.push(...page.organizations);
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    const ids = seen.map((organization) => organization.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => made.includes(id)).sort()).toEqual([...made].sort());
    const times = seen.map((organization) => organization.createdAt!.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(seen.find((organization) => organization.id === made[0])).toMatchObject({ name: 'Page 1', memberCount: 1 });
  });
});
