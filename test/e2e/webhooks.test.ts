import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { ApiClient } from '../support/api-client';
import { countMails, mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/api.md, "Webhooks", through the gateway: registering, reading,
 * changing, rotating and deleting endpoints, and that one organisation's
 * administrator reaches none of another's (404 webhook:not_found) while a
 * member without webhooks:manage is refused (403). The address guard of
 * production is tested at identity (services/identity/test/integration/webhooks.test.ts).
 */
let stack: E2eStack;
const UNLIMITED = '100000';

beforeAll(async () => {
  stack = await startE2eStack('webhooks', {
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    WEBHOOK_SEALING_PUBLIC_KEY: generateKeyPairSync('x25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  });
}, 90_000);

afterAll(async () => {
  await stack?.destroy();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Endpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
  secret?: string;
  previous_secret_expires_at?: string;
}
interface Problem {
  code: string;
  detail?: string;
}

async function createOrg(owner: Account): Promise<string> {
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Acme', slug: `acme-${randomBytes(4).toString('hex')}` });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function join(owner: Account, orgId: string, invited: Account, role: string): Promise<void> {
  const before = countMails(stack, invited.email, 'invitations/accept');
  expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: invited.email, role })).status).toBe(201);
  const token = await mailedToken(stack, invited.email, 'invitations/accept', before);
  expect((await invited.client.post('/v0/invitations/accept', { token })).status).toBe(200);
}

const hook = { url: 'http://127.0.0.1:9/hooks', events: ['org.member.added'], description: 'CRM' };

describe('webhook endpoints', () => {
  it('registers an endpoint with its secret shown once, then reads, changes, rotates and deletes it', async () => {
    const owner = await signedInAccount(stack, 'hookowner');
    const orgId = await createOrg(owner);
    const created = await owner.client.post<Endpoint>(`/v0/orgs/${orgId}/webhooks`, hook);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: hook.url, events: hook.events, description: 'CRM', enabled: true });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const base = `/v0/orgs/${orgId}/webhooks/${created.body.id}`;

    const read = await owner.client.get<Endpoint>(base);
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(read.text).not.toContain(created.body.secret!.slice(6));
    const listed = await owner.client.get<{ items: Endpoint[] }>(`/v0/orgs/${orgId}/webhooks`);
    expect(listed.body.items.map((each) => each.id)).toEqual([created.body.id]);

    const patched = await owner.client.patch<Endpoint>(base, { events: ['*'], enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: hook.url, events: ['*'], enabled: false, description: 'CRM' });
    expect((await owner.client.patch<Problem>(base, {})).status).toBe(400);

    const rotated = await owner.client.post<Endpoint>(`${base}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    expect((await owner.client.delete(base)).status).toBe(204);
    const gone = await owner.client.get<Problem>(base);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('webhook:not_found');

    const audit = await owner.client.get<{ items: { action: string }[] }>(`/v0/orgs/${orgId}/audit-log?action=webhook.created`);
    expect(audit.body.items).toHaveLength(1);
  });

  it('refuses unknown event types and non-http URLs with 400', async () => {
    const owner = await signedInAccount(stack, 'hookinput');
    const orgId = await createOrg(owner);
    for (const body of [
      { ...hook, events: ['user.registered'] },
      { ...hook, events: [] },
      { ...hook, url: 'file:///etc/passwd' },
      { ...hook, url: 'https://user:secret@example.com/' },
    ]) {
      const refused = await owner.client.post<Problem>(`/v0/orgs/${orgId}/webhooks`, body);
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'validation:invalid_input' });
    }
    expect((await new ApiClient(stack.gatewayUrl).post<Problem>(`/v0/orgs/${orgId}/webhooks`, hook)).status).toBe(401);
  });

  it('keeps one organisation’s endpoints from another’s administrator, and needs webhooks:manage', async () => {
    const [ownerA, ownerB, memberB] = await Promise.all([signedInAccount(stack, 'hooka'), signedInAccount(stack, 'hookb'), signedInAccount(stack, 'hookm')]);
    const [orgA, orgB] = await Promise.all([createOrg(ownerA), createOrg(ownerB)]);
    await join(ownerB, orgB, memberB, 'member');
    const ofB = (await ownerB.client.post<Endpoint>(`/v0/orgs/${orgB}/webhooks`, hook)).body.id;

    // A's owner, through A, where they hold webhooks:manage: B's endpoint is as unknown as a made-up one.
    for (const id of [ofB, randomUUID()]) {
      const base = `/v0/orgs/${orgA}/webhooks/${id}`;
      for (const response of [
        await ownerA.client.get<Problem>(base),
        await ownerA.client.patch<Problem>(base, { enabled: false }),
        await ownerA.client.post<Problem>(`${base}/rotate-secret`),
        await ownerA.client.delete<Problem>(base),
      ]) {
        expect({ status: response.status, code: response.body.code }).toEqual({ status: 404, code: 'webhook:not_found' });
      }
    }
    // A's owner through B: not a member there.
    expect((await ownerA.client.get<Problem>(`/v0/orgs/${orgB}/webhooks/${ofB}`)).body.code).toBe('org:not_found');
    expect((await ownerA.client.get<Problem>(`/v0/orgs/${orgB}/webhooks`)).status).toBe(404);
    // B's plain member.
    for (const response of [
      await memberB.client.get<Problem>(`/v0/orgs/${orgB}/webhooks`),
      await memberB.client.get<Problem>(`/v0/orgs/${orgB}/webhooks/${ofB}`),
      await memberB.client.post<Problem>(`/v0/orgs/${orgB}/webhooks`, hook),
      await memberB.client.post<Problem>(`/v0/orgs/${orgB}/webhooks/${ofB}/rotate-secret`),
      await memberB.client.delete<Problem>(`/v0/orgs/${orgB}/webhooks/${ofB}`),
    ]) {
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 'org:forbidden' });
    }
    const still = await ownerB.client.get<Endpoint>(`/v0/orgs/${orgB}/webhooks/${ofB}`);
    expect(still.body).toMatchObject({ enabled: true, events: hook.events });
  });
});
