import { randomBytes } from 'node:crypto';
import { waitFor } from '@latchkey/test-kit';
import { signedInAccount } from '../support/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { startTopology, type RunningTopology } from '../support/topology';
import { startWebhookReceiver, typeOf, verifyDelivery, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhook deliveries while a NATS server dies, on the production topology's
 * 3-node NATS cluster with 3 replicas per stream (docs/webhooks.md): every
 * event an organisation's change caused reaches its endpoint, signed, each
 * message at least once, though a third of the broker went away in the
 * middle of the burst.
 */
jest.setTimeout(300_000);

const EVENTS = 60;
/** Requests in flight at once, as from a handful of busy administrators. */
const CONCURRENCY = 6;

let topology: RunningTopology;
let stack: E2eStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  topology = await startTopology({ nats: true });
  stack = await startE2eStack(
    'webhook-failover',
    { RATE_LIMIT_IP_MAX: '100000', RATE_LIMIT_MAIL_MAX: '100000', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1,1,1,1,1,1' },
    { topology: topology.addresses },
  );
  receiver = await startWebhookReceiver(() => 204);
});

afterAll(async () => {
  await receiver?.close();
  await stack?.destroy();
  await topology?.stop();
});

it('delivers every event of a burst while a NATS server dies', async () => {
  const owner = await signedInAccount(stack, 'hookburst');
  const created = await owner.client.post<{ id: string }>('/v0/orgs', { name: 'Burst', slug: `burst-${randomBytes(4).toString('hex')}` });
  const orgId = created.body.id;
  const endpoint = await owner.client.post<{ secret: string }>(`/v0/orgs/${orgId}/webhooks`, { url: receiver.url, events: ['org.invitation.created'], description: '' });
  expect(endpoint.status).toBe(201);

  const victim = topology.nats!.servers[0]!;
  let answered = 0;
  let killed: Promise<void> | undefined;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        const invited = await owner.client.post(`/v0/orgs/${orgId}/invitations`, { email: `burst.${randomBytes(4).toString('hex')}@example.com`, role: 'member' });
        // The broker is behind the outbox: no request has to fail.
        expect(invited.status).toBe(201);
        answered += 1;
        if (answered === EVENTS / 4) killed ??= victim.kill();
      }
    }),
  );
  await killed;

  const delivered = () => new Set(receiver.received.filter((delivery) => delivery.answered === 204).map((delivery) => String(delivery.headers['webhook-id'])));
  await waitFor(() => (delivered().size === EVENTS ? true : undefined), { timeoutMs: 120_000, intervalMs: 500, description: `all ${EVENTS} messages delivered` });
  for (const delivery of receiver.received) expect(verifyDelivery(endpoint.body.secret, delivery).type).toBe('org.invitation.created');
  expect(receiver.received.every((delivery) => typeOf(delivery) === 'org.invitation.created')).toBe(true);
  await victim.start();
  // The cluster whole again: JetStream answers before the stack's clean-up asks it for its streams.
  await topology.nats!.waitForJetStream();
});
