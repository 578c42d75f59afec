import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { waitFor } from '@latchkey/test-kit';
import { mailedToken, signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { startWebhookReceiver, typeOf, verifyDelivery, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * docs/webhooks.md through the whole stack: an organisation's events reach
 * its endpoints signed as the `standardwebhooks` and `svix` verifiers
 * accept, retried with the same webhook-id until answered, logged attempt
 * by attempt, sent again and tested on demand; an endpoint that never
 * answers holds no more than its own few deliveries; a message outlives
 * the jobs worker's crash and its endpoint's outage; an endpoint failing
 * for too long is disabled and its owners mailed. The stack's own sealing key pair
 * (tools/stack) lets identity seal and the jobs worker open.
 */
let stack: E2eStack;
let db: pg.Client;
const UNLIMITED = '100000';
/** WEBHOOK_ENDPOINT_CONCURRENCY of this stack. */
const PER_ENDPOINT = 3;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  stack = await startE2eStack('webhook-deliveries', {
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1,1,1,1,1,1',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    WEBHOOK_ENDPOINT_CONCURRENCY: String(PER_ENDPOINT),
  });
  db = new pg.Client({ connectionString: stack.databaseUrls.identity });
  await db.connect();
}, 90_000);

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await db?.end();
  await stack?.destroy();
});

type Account = Awaited<ReturnType<typeof signedInAccount>>;
interface Endpoint {
  id: string;
  enabled: boolean;
  failing_since: string | null;
  secret?: string;
}
interface Delivery {
  id: string;
  message_id: string;
  event_type: string;
  status: string;
  response_status: number | null;
  duration_ms: number;
  attempted_at: string;
}

async function receiver(answer: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(answer);
  receivers.push(started);
  return started;
}

async function createOrg(owner: Account): Promise<string> {
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Acme', slug: `hooks-${randomBytes(4).toString('hex')}` });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function createEndpoint(owner: Account, orgId: string, url: string, events: string[]): Promise<Endpoint & { secret: string }> {
  const created = await owner.client.post<Endpoint & { secret: string }>(`/v0/orgs/${orgId}/webhooks`, { url, events, description: 'test receiver' });
  expect(created.status).toBe(201);
  return created.body;
}

const idOf = (delivery: ReceivedDelivery): string => String(delivery.headers['webhook-id']);

describe('webhook deliveries', () => {
  it('signs every delivery as standardwebhooks and svix verify, retries with the same webhook-id, logs each attempt, and sends again on demand', async () => {
    const owner = await signedInAccount(stack, 'deliver_owner');
    const member = await signedInAccount(stack, 'deliver_member');
    const orgId = await createOrg(owner);
    // The first two requests fail, as an endpoint being deployed would.
    const crm = await receiver((_delivery, index) => (index < 2 ? 500 : 204));
    const endpoint = await createEndpoint(owner, orgId, crm.url, ['org.invitation.created', 'org.member.added']);
    const base = `/v0/orgs/${orgId}/webhooks/${endpoint.id}`;

    expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: member.email, role: 'member' })).status).toBe(201);
    const token = await mailedToken(stack, member.email, 'invitations/accept');
    expect((await member.client.post('/v0/invitations/accept', { token })).status).toBe(200);

    const delivered = (type: string) => crm.received.find((delivery) => delivery.answered === 204 && typeOf(delivery) === type);
    await waitFor(() => (delivered('org.invitation.created') && delivered('org.member.added') ? true : undefined), {
      timeoutMs: 30_000,
      description: 'both events delivered',
    });
    const bodies = crm.received.map((delivery) => verifyDelivery(endpoint.secret, delivery));
    // Subscribed types only: org.invitation.accepted, queued with org.member.added, is not sent here.
    expect(new Set(bodies.map((body) => body.type))).toEqual(new Set(['org.invitation.created', 'org.member.added']));
    expect(verifyDelivery(endpoint.secret, delivered('org.member.added')!)).toMatchObject({
      type: 'org.member.added',
      data: { organizationId: orgId, userId: member.id, role: 'member', source: 'invitation' },
    });
    // Each message keeps its id and body through its retries; the failed ones came back.
    const byId = new Map<string, ReceivedDelivery[]>();
    for (const delivery of crm.received) byId.set(idOf(delivery), [...(byId.get(idOf(delivery)) ?? []), delivery]);
    expect(byId.size).toBe(2);
    for (const attempts of byId.values()) {
      expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
      expect(attempts.at(-1)!.answered).toBe(204);
    }
    expect(Math.max(...[...byId.values()].map((attempts) => attempts.length))).toBeGreaterThan(1);

    // The delivery log: every attempt, newest first, in pages.
    const everyPage = async (): Promise<Delivery[]> => {
      const items: Delivery[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: { status: number; body: { items: Delivery[]; next_cursor: string | null } } = await owner.client.get(
          `${base}/deliveries?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        items.push(...page.body.items);
        cursor = page.body.next_cursor;
      }
      return items;
    };
    const log = await waitFor(async () => {
      const items = await everyPage();
      return items.length === crm.received.length ? items : undefined;
    });
    expect(log.map((attempt) => attempt.attempted_at)).toEqual(log.map((attempt) => attempt.attempted_at).sort().reverse());
    expect(log.filter((attempt) => attempt.status === 'failed').map((attempt) => attempt.response_status)).toEqual([500, 500]);
    expect(log.filter((attempt) => attempt.status === 'succeeded')).toHaveLength(2);
    expect(new Set(log.map((attempt) => attempt.message_id))).toEqual(new Set(byId.keys()));
    expect((await owner.client.get<Endpoint>(base)).body.failing_since).toBeNull();

    // Sent again on demand: the same webhook-id and body, though it was delivered.
    const again = idOf(delivered('org.member.added')!);
    const before = crm.received.length;
    expect((await owner.client.post(`${base}/deliveries/${again}/retry`)).status).toBe(202);
    await waitFor(() => (crm.received.length > before ? true : undefined), { description: 'the retried delivery' });
    expect(idOf(crm.received.at(-1)!)).toBe(again);
    expect(crm.received.at(-1)!.body).toBe(delivered('org.member.added')!.body);
    expect(await owner.client.post(`${base}/deliveries/${randomUUID()}/retry`)).toMatchObject({ status: 404, body: { code: 'webhook:not_found' } });
    // A message of this endpoint named through another endpoint of the organisation is as unknown.
    const other = await createEndpoint(owner, orgId, crm.url, ['org.member.removed']);
    expect(await owner.client.post(`/v0/orgs/${orgId}/webhooks/${other.id}/deliveries/${again}/retry`)).toMatchObject({ status: 404, body: { code: 'webhook:not_found' } });
    expect(await owner.client.get(`${base}/deliveries?limit=101`)).toMatchObject({ status: 400 });

    // A test message, whatever the endpoint subscribes to.
    expect((await owner.client.post(`${base}/test`)).status).toBe(202);
    const arrived = await waitFor(() => crm.received.find((delivery) => typeOf(delivery) === 'webhook.test'), { description: 'the test message' });
    expect(verifyDelivery(endpoint.secret, arrived)).toMatchObject({ type: 'webhook.test', data: { organizationId: orgId, endpointId: endpoint.id } });

    // Only members with webhooks:manage read the log or send.
    expect((await member.client.get(`${base}/deliveries`)).status).toBe(403);
    expect((await member.client.post(`${base}/test`)).status).toBe(403);
  });

  it('holds an endpoint that never answers to its own few deliveries, while another endpoint gets every message', async () => {
    const owner = await signedInAccount(stack, 'isolate_owner');
    const orgId = await createOrg(owner);
    const dead = await receiver(() => 'hang');
    const live = await receiver(() => 204);
    await createEndpoint(owner, orgId, dead.url, ['org.invitation.created']);
    await createEndpoint(owner, orgId, live.url, ['org.invitation.created']);

    const invitations = 12;
    for (let index = 0; index < invitations; index += 1) {
      const invited = await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: `invitee.${index}.${randomBytes(3).toString('hex')}@example.com`, role: 'member' });
      expect(invited.status).toBe(201);
    }
    await waitFor(() => (new Set(live.received.map(idOf)).size === invitations ? true : undefined), { timeoutMs: 30_000, description: 'every message at the live endpoint' });
    // Meanwhile the dead endpoint held at most its share of the worker's slots.
    expect(dead.received.length).toBeGreaterThan(0);
    expect(dead.mostInFlight).toBeLessThanOrEqual(PER_ENDPOINT);
  });

  it('keeps retrying a message through the jobs worker’s crash, and delivers it once its endpoint is back', async () => {
    const owner = await signedInAccount(stack, 'resume_owner');
    const orgId = await createOrg(owner);
    // The endpoint's host is down: nothing listens on its port.
    const port = (await startWebhookReceiver(() => 204).then(async (probe) => (await probe.close(), probe))).port;
    const endpoint = await createEndpoint(owner, orgId, `http://127.0.0.1:${port}/hooks`, ['*']);
    const base = `/v0/orgs/${orgId}/webhooks/${endpoint.id}`;
    const attempts = async (): Promise<Delivery[]> => (await owner.client.get<{ items: Delivery[] }>(`${base}/deliveries?limit=100`)).body.items;

    expect((await owner.client.post(`${base}/test`)).status).toBe(202);
    const [first] = await waitFor(async () => ((await attempts()).length > 0 ? attempts() : undefined), { description: 'a failed attempt' });
    expect(first).toMatchObject({ event_type: 'webhook.test', status: 'failed', response_status: null });

    // Killed while the message waits out its pause: JetStream holds it, and the new worker takes it up.
    await stack.restart('jobs');
    const before = (await attempts()).length;
    await waitFor(async () => ((await attempts()).length > before ? true : undefined), { timeoutMs: 15_000, description: 'an attempt by the restarted worker' });

    const back = await startWebhookReceiver(() => 204, port);
    receivers.push(back);
    const delivered = await waitFor(() => back.received.find((delivery) => delivery.answered === 204), { timeoutMs: 15_000, description: 'the delivery once the endpoint is back' });
    expect(idOf(delivered)).toBe(first!.message_id);
    expect(verifyDelivery(endpoint.secret, delivered)).toMatchObject({ type: 'webhook.test' });
    await waitFor(async () => ((await attempts())[0]?.status === 'succeeded' ? true : undefined), { description: 'the success in the log' });
    expect(new Set((await attempts()).map((attempt) => attempt.message_id))).toEqual(new Set([first!.message_id]));
  });

  it('disables an endpoint that failed for too long, mails its owners and audits it, and starts afresh once enabled', async () => {
    const owner = await signedInAccount(stack, 'disable_owner');
    const orgId = await createOrg(owner);
    const down = await receiver(() => 503);
    const endpoint = await createEndpoint(owner, orgId, down.url, ['*']);
    const base = `/v0/orgs/${orgId}/webhooks/${endpoint.id}`;

    expect((await owner.client.post(`${base}/test`)).status).toBe(202);
    const failing = await waitFor(async () => (await owner.client.get<Endpoint>(base)).body.failing_since ?? undefined, { description: 'the endpoint failing' });
    expect(Date.parse(failing)).toBeGreaterThan(Date.now() - 60_000);
    // As if it had failed since before WEBHOOK_DISABLE_AFTER_HOURS (120) ago.
    await db.query(`UPDATE identity.webhook_endpoints SET failing_since = now() - interval '121 hours' WHERE id = $1`, [endpoint.id]);

    expect((await owner.client.post(`${base}/test`)).status).toBe(202);
    await waitFor(async () => ((await owner.client.get<Endpoint>(base)).body.enabled ? undefined : true), { timeoutMs: 20_000, description: 'the endpoint disabled' });
    const mail = await waitFor(() => stack.smtp!.mails.find((caught) => caught.to.includes(owner.email) && caught.subject.includes('was disabled')), {
      description: 'the owner’s mail',
    });
    expect(mail.text).toContain(`127.0.0.1:${down.port}`);
    expect(mail.text).not.toContain('/hooks');
    const audit = await owner.client.get<{ items: { action: string; actor: { type: string }; target: { id: string } }[] }>(
      `/v0/orgs/${orgId}/audit-log?action=webhook.disabled`,
    );
    expect(audit.body.items).toEqual([expect.objectContaining({ action: 'webhook.disabled', actor: expect.objectContaining({ type: 'system' }), target: expect.objectContaining({ id: endpoint.id }) })]);
    expect(await owner.client.post(`${base}/test`)).toMatchObject({ status: 409, body: { code: 'webhook:disabled' } });

    // Events while disabled make no message for it; enabled again, its failures before count no more.
    expect((await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: `late.${randomBytes(3).toString('hex')}@example.com`, role: 'member' })).status).toBe(201);
    const { rows } = await db.query(`SELECT FROM identity.webhook_messages WHERE endpoint_id = $1 AND type = 'org.invitation.created'`, [endpoint.id]);
    expect(rows).toHaveLength(0);
    const enabled = await owner.client.patch<Endpoint>(base, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, failing_since: null });
  });
});
