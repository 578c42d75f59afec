import { randomBytes } from 'node:crypto';
import { sessionsV1 } from '@latchkey/contracts';
import { createTestServiceClient, type TestServiceClient } from '@latchkey/test-kit';
import { ApiClient, type ApiResponse } from '../support/api-client';
import { countMails, mailedToken, PASSWORD, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/api.md, "Organisations", through the gateway: the routes a product's
 * web app calls, the organisation in `me`, service tokens and session
 * introspection, and tenant isolation checked on every organisation route
 * the OpenAPI document lists.
 */
let stack: E2eStack;
let sessions: TestServiceClient<typeof sessionsV1.SessionsServiceService>;
const UNLIMITED = '100000';

beforeAll(async () => {
  stack = await startE2eStack('orgs', { RATE_LIMIT_IP_MAX: UNLIMITED, RATE_LIMIT_MAIL_MAX: UNLIMITED });
  sessions = createTestServiceClient(sessionsV1.SessionsServiceService, `127.0.0.1:${stack.processes.get('gateway')!.ports.GRPC_PORT}`);
}, 90_000);

afterAll(async () => {
  sessions?.close();
  await stack?.destroy();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Org {
  id: string;
  slug: string;
  name: string;
  role: string;
  permissions: string[];
}

const slug = () => `acme-${randomBytes(4).toString('hex')}`;
const put = (client: ApiClient, path: string, json: unknown) => client.request('PUT', path, { json });

async function createOrg(owner: Account, name = 'Acme'): Promise<Org> {
  const created = await owner.client.post<Org>('/v0/orgs', { name, slug: slug() });
  expect(created.status).toBe(201);
  return created.body;
}

/** Invites `invited` by mail and has it accept the mailed link. */
async function join(owner: Account, org: Org, invited: Account, role = 'member'): Promise<void> {
  const before = countMails(stack, invited.email, 'invitations/accept');
  expect((await owner.client.post(`/v0/orgs/${org.id}/invitations`, { email: invited.email, role })).status).toBe(201);
  const token = await mailedToken(stack, invited.email, 'invitations/accept', before);
  expect((await invited.client.post('/v0/invitations/accept', { token })).status).toBe(200);
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('an organisation’s life', () => {
  it('is created by a verified account, which owns it, shown to members only, renamed and deleted by its owner', async () => {
    const owner = await signedInAccount(stack, 'orgowner');
    const org = await createOrg(owner, '  Acme Inc. ');
    expect(org).toMatchObject({ name: 'Acme Inc.', role: 'owner', permissions: expect.arrayContaining(['org:delete', 'members:manage']) });
    expect((await owner.client.get<{ items: Org[] }>('/v0/orgs')).body.items.map((each) => each.id)).toEqual([org.id]);
    expect(await owner.client.post('/v0/orgs', { name: 'Copy', slug: org.slug })).toMatchObject({ status: 409, body: { code: 'org:slug_taken' } });
    expect(await owner.client.post('/v0/orgs', { name: 'Bad', slug: '-bad-' })).toMatchObject({ status: 400, body: { code: 'validation:invalid_input' } });

    const stranger = await signedInAccount(stack, 'stranger');
    expect(await stranger.client.get(`/v0/orgs/${org.id}`)).toMatchObject({ status: 404, body: { code: 'org:not_found' } });

    const renamed = await owner.client.patch<Org>(`/v0/orgs/${org.id}`, { name: 'Acme Ltd' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Acme Ltd', slug: org.slug } });
    expect((await owner.client.delete(`/v0/orgs/${org.id}`)).status).toBe(204);
    expect((await owner.client.get(`/v0/orgs/${org.id}`)).status).toBe(404);
  });
});

describe('invitations and members', () => {
  it('invites by mail, lets the invited address accept once, and keeps the last owner', async () => {
    const owner = await signedInAccount(stack, 'inviter');
    const org = await createOrg(owner);
    const colleague = await signedInAccount(stack, 'colleague');
    expect((await owner.client.post(`/v0/orgs/${org.id}/invitations`, { email: colleague.email.toUpperCase(), role: 'admin' })).status).toBe(201);
    const token = await mailedToken(stack, colleague.email, 'invitations/accept');
    const mail = stack.smtp!.mails.find((each) => each.text.includes(token))!;
    expect(mail.subject).toContain(`invited you to ${org.name}`);

    const lookedUp = await new ApiClient(stack.gatewayUrl).post('/v0/invitations/lookup', { token });
    expect(lookedUp).toMatchObject({ status: 200, body: { org: { id: org.id, slug: org.slug, name: org.name }, email: colleague.email, role: 'admin' } });
    const other = await signedInAccount(stack, 'other');
    expect(await other.client.post('/v0/invitations/accept', { token })).toMatchObject({ status: 403, body: { code: 'org:invitation_email_mismatch' } });
    expect(await colleague.client.post('/v0/invitations/accept', { token })).toMatchObject({ status: 200, body: { id: org.id, role: 'admin' } });
    expect(await colleague.client.post('/v0/invitations/accept', { token })).toMatchObject({ status: 400, body: { code: 'org:invitation_invalid' } });

    const members = await owner.client.get<{ items: { user: { id: string }; role: string; source: string }[]; next_cursor: string | null }>(`/v0/orgs/${org.id}/members?limit=1`);
    expect(members.body.items).toEqual([expect.objectContaining({ user: expect.objectContaining({ id: owner.id }), role: 'owner', source: 'creator' })]);
    const next = await owner.client.get<{ items: { user: { id: string }; source: string }[]; next_cursor: string | null }>(
      `/v0/orgs/${org.id}/members?limit=1&cursor=${encodeURIComponent(members.body.next_cursor!)}`,
    );
    expect(next.body).toMatchObject({ items: [expect.objectContaining({ user: expect.objectContaining({ id: colleague.id }), source: 'invitation' })], next_cursor: null });

    // An admin cannot take the owner's role away; the owner cannot leave while it is the last.
    expect(await colleague.client.patch(`/v0/orgs/${org.id}/members/${owner.id}`, { role: 'member' })).toMatchObject({ status: 403, body: { code: 'org:forbidden' } });
    expect(await owner.client.delete(`/v0/orgs/${org.id}/members/${owner.id}`)).toMatchObject({ status: 409, body: { code: 'org:last_owner' } });
    expect(await owner.client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).toMatchObject({ status: 409, body: { code: 'org:last_owner' } });

    // Made an owner, the colleague lets the first owner leave.
    expect(await owner.client.patch(`/v0/orgs/${org.id}/members/${colleague.id}`, { role: 'owner' })).toMatchObject({ status: 200, body: { role: 'owner' } });
    expect((await owner.client.delete(`/v0/orgs/${org.id}/members/${owner.id}`)).status).toBe(204);
  });

  it('fails a revoked link, and lists invitations by status', async () => {
    const owner = await signedInAccount(stack, 'revoker');
    const org = await createOrg(owner);
    const invited = `later.${randomBytes(4).toString('hex')}@example.com`;
    const made = await owner.client.post<{ id: string }>(`/v0/orgs/${org.id}/invitations`, { email: invited, role: 'member' });
    const token = await mailedToken(stack, invited, 'invitations/accept');
    expect((await owner.client.delete(`/v0/orgs/${org.id}/invitations/${made.body.id}`)).status).toBe(204);
    expect(await new ApiClient(stack.gatewayUrl).post('/v0/invitations/lookup', { token })).toMatchObject({ status: 400, body: { code: 'org:invitation_invalid' } });
    const revoked = await owner.client.get<{ items: { id: string; status: string }[] }>(`/v0/orgs/${org.id}/invitations?status=revoked`);
    expect(revoked.body.items).toEqual([expect.objectContaining({ id: made.body.id, status: 'revoked' })]);
    expect((await owner.client.get<{ items: unknown[] }>(`/v0/orgs/${org.id}/invitations?status=pending`)).body.items).toEqual([]);
  });
});

describe('the organisation a session acts for', () => {
  it('shows in me, service tokens and introspection, and a role change or a removal shows in the very next one', async () => {
    const owner = await signedInAccount(stack, 'actingowner');
    const org = await createOrg(owner);
    await owner.client.post(`/v0/orgs/${org.id}/roles`, { name: 'billing', permissions: ['invoices:*'] });
    const member = await signedInAccount(stack, 'acting');
    await join(owner, org, member, 'billing');

    expect((await member.client.get('/v0/users/me')).body).toMatchObject({ id: member.id, active_org: null });
    expect(await put(member.client, '/v0/auth/session/org', { org_id: org.id })).toMatchObject({ status: 200, body: { id: org.id, role: 'billing' } });
    expect((await member.client.get('/v0/users/me')).body).toMatchObject({ active_org: { id: org.id, slug: org.slug, role: 'billing', permissions: ['invoices:*'] } });
    const token = (await member.client.post<{ token: string }>('/v0/auth/token')).body.token;
    expect(claimsOf(token)).toMatchObject({ sub: member.id, org_id: org.id, org_slug: org.slug, org_role: 'billing', org_permissions: ['invoices:*'] });
    expect(await sessions.introspectSession({ token: member.client.sessionCookie! })).toMatchObject({
      active: true,
      organization: { id: org.id, slug: org.slug, role: 'billing', permissions: ['invoices:*'] },
    });

    // A role change shows at once.
    expect((await owner.client.patch(`/v0/orgs/${org.id}/members/${member.id}`, { role: 'member' })).status).toBe(200);
    expect(claimsOf((await member.client.post<{ token: string }>('/v0/auth/token')).body.token)).toMatchObject({ org_role: 'member', org_permissions: ['members:read'] });
    expect((await member.client.get('/v0/users/me')).body).toMatchObject({ active_org: { role: 'member' } });

    // A removal: no organisation any more, anywhere.
    expect((await owner.client.delete(`/v0/orgs/${org.id}/members/${member.id}`)).status).toBe(204);
    expect(claimsOf((await member.client.post<{ token: string }>('/v0/auth/token')).body.token)).not.toHaveProperty('org_id');
    const introspected = await sessions.introspectSession({ token: member.client.sessionCookie! });
    expect(introspected.active).toBe(true);
    expect(introspected.organization).toBeUndefined();
    expect((await member.client.get('/v0/users/me')).body).toMatchObject({ active_org: null });
  });

  it('acts only for an organisation of the caller’s, and for none with null', async () => {
    const owner = await signedInAccount(stack, 'switcher');
    const org = await createOrg(owner);
    const stranger = await signedInAccount(stack, 'switchstranger');
    expect(await put(stranger.client, '/v0/auth/session/org', { org_id: org.id })).toMatchObject({ status: 404, body: { code: 'org:not_found' } });
    expect((await put(owner.client, '/v0/auth/session/org', { org_id: org.id })).status).toBe(200);
    const cleared = await put(owner.client, '/v0/auth/session/org', { org_id: null });
    expect(cleared.status).toBe(200);
    expect(cleared.text).toBe('null');
    expect((await owner.client.get('/v0/users/me')).body).toMatchObject({ active_org: null });
  });
});

describe('tenant isolation', () => {
  interface RouteOperation {
    readonly method: string;
    readonly path: string;
    readonly body: JsonSchema | undefined;
  }
  interface JsonSchema {
    readonly type?: string | string[];
    readonly properties?: Record<string, JsonSchema>;
    readonly required?: string[];
    readonly items?: JsonSchema;
    readonly enum?: unknown[];
    readonly format?: string;
    readonly anyOf?: JsonSchema[];
    readonly oneOf?: JsonSchema[];
  }

  /** The operations that name an organisation, by path or body, as the OpenAPI document lists them. */
  async function organisationOperations(): Promise<RouteOperation[]> {
    const document = (await (await fetch(`${stack.gatewayUrl}/v0/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
    };
    return Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, body: operation.requestBody?.content['application/json']?.schema }))
        .filter((operation) => operation.path.includes('{org_id}') || operation.body?.properties?.['org_id'] !== undefined),
    );
  }

  it('answers a member of one organisation 404 or 403 on every organisation route, with the other organisation’s ids', async () => {
    const ownerA = await signedInAccount(stack, 'tenanta');
    const orgA = await createOrg(ownerA);
    const ownerB = await signedInAccount(stack, 'tenantb');
    const orgB = await createOrg(ownerB);
    await ownerB.client.post(`/v0/orgs/${orgB.id}/roles`, { name: 'custom', permissions: ['things:read'] });
    const invitationB = await ownerB.client.post<{ id: string }>(`/v0/orgs/${orgB.id}/invitations`, { email: `b.${randomBytes(4).toString('hex')}@example.com`, role: 'member' });
    const domainB = `tenant-b-${randomBytes(4).toString('hex')}.com`;
    expect((await ownerB.client.post(`/v0/orgs/${orgB.id}/domains`, { domain: domainB })).status).toBe(201);
    const ids: Record<string, string> = { org_id: orgB.id, user_id: ownerB.id, id: invitationB.body.id, message_id: invitationB.body.id, name: 'custom', domain: domainB };

    /** A body that passes the gateway's validation, so that the answer is the tenant check's. */
    const sample = (name: string, schema: JsonSchema): unknown => {
      if (ids[name] !== undefined) return ids[name];
      const choices = schema.anyOf ?? schema.oneOf;
      if (choices) return sample(name, choices.find((each) => each.type !== 'null') ?? choices[0]!);
      if (schema.enum) return schema.enum[0];
      if (schema.type === 'array') return name === 'permissions' ? ['things:write'] : name === 'events' ? ['*'] : [];
      if (schema.type === 'object') {
        return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([property, inner]) => [property, sample(property, inner)]));
      }
      if (schema.format === 'uuid') return orgB.id;
      if (name === 'email') return `x.${randomBytes(4).toString('hex')}@example.com`;
      if (name === 'slug') return slug();
      if (name === 'role') return 'member';
      if (name === 'domain') return `tenant-${randomBytes(4).toString('hex')}.com`;
      if (name === 'url') return 'https://hooks.example.com/latchkey';
      if (schema.type === 'boolean') return false;
      return 'Sample';
    };

    const operations = await organisationOperations();
    expect(operations.length).toBeGreaterThanOrEqual(15);
    const answers: { operation: string; status: number; code: unknown }[] = [];
    for (const operation of operations) {
      const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(ids[name] ?? 'missing'));
      const body = operation.body ? sample('', operation.body) : undefined;
      const answer: ApiResponse = await ownerA.client.request(operation.method, path, body === undefined ? {} : { json: body });
      answers.push({ operation: `${operation.method} ${operation.path}`, status: answer.status, code: answer.body?.code });
    }
    for (const answer of answers) {
      expect({ ...answer, refused: answer.status === 404 || answer.status === 403 }).toEqual({ ...answer, refused: true });
    }
    // Nothing of B's changed: its owner still sees it whole.
    expect((await ownerB.client.get(`/v0/orgs/${orgB.id}`)).body).toMatchObject({ name: orgB.name, slug: orgB.slug });
    expect((await ownerB.client.get<{ items: unknown[] }>(`/v0/orgs/${orgB.id}/members`)).body.items).toHaveLength(1);
    expect((await ownerB.client.get<{ items: { domain: string }[] }>(`/v0/orgs/${orgB.id}/domains`)).body.items.map((each) => each.domain)).toEqual([domainB]);
    expect((await ownerA.client.get(`/v0/orgs/${orgA.id}`)).status).toBe(200);
  });
});
