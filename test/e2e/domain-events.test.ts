import { AckPolicy, connect, type JsMsg, type NatsConnection } from 'nats';
import { eventsV1 } from '@latchkey/contracts';
import { topology } from '@latchkey/job-streams';
import { testNatsUrl, waitFor } from '@latchkey/test-kit';
import { mailedToken, newAccount, PASSWORD } from '../support/accounts';
import { ApiClient } from '../support/api-client';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * docs/events.md as a service beside Latchkey consumes it: a durable
 * consumer on the events stream, dropping repeats by event id.
 */
let stack: E2eStack;
let nats: NatsConnection;

beforeAll(async () => {
  stack = await startE2eStack('events');
  nats = await connect({ servers: testNatsUrl() });
}, 60_000);

afterAll(async () => {
  await nats?.close();
  await stack?.destroy();
});

/** The downstream service: handles each event once, however often it is delivered. */
class Downstream {
  readonly handled: eventsV1.Event[] = [];
  readonly deliveries: string[] = [];
  private readonly seen = new Set<string>();
  private readonly stopped: Promise<void>;
  private stop = (): void => undefined;

  constructor(messages: AsyncIterable<JsMsg> & { stop(): void }, private readonly refuseFirstDelivery = true) {
    this.stop = () => messages.stop();
    this.stopped = (async () => {
      for await (const message of messages) this.receive(message);
    })();
  }

  private receive(message: JsMsg): void {
    const id = message.headers?.get('Nats-Msg-Id') ?? '';
    this.deliveries.push(id);
    // Play a consumer that crashed before acking the first time: the stream delivers it again.
    if (this.refuseFirstDelivery && message.info.deliveryCount === 1 && this.deliveries.length === 1) {
      message.nak();
      return;
    }
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.handled.push(eventsV1.Event.fromJSON(message.json()));
    }
    message.ack();
  }

  async close(): Promise<void> {
    this.stop();
    await this.stopped;
  }
}

async function subscribe(filter: string, name: string): Promise<Downstream> {
  const names = topology(stack.env.NATS_SUBJECT_PREFIX!);
  const jsm = await nats.jetstreamManager();
  await jsm.consumers.add(names.eventsStream, { durable_name: name, filter_subject: `${stack.env.NATS_SUBJECT_PREFIX}.${filter}`, ack_policy: AckPolicy.Explicit, ack_wait: 1e9 });
  const consumer = await nats.jetstream().consumers.get(names.eventsStream, name);
  return new Downstream(await consumer.consume());
}

describe('domain events', () => {
  it('announces a registration, its verification and its deletion once each, with ids and no secrets', async () => {
    const downstream = await subscribe('events.user.>', 'billing');
    const account = newAccount('evented');
    const client = new ApiClient(stack.gatewayUrl);
    const registered = await client.post<{ id: string }>('/v0/users', account);
    const token = await mailedToken(stack, account.email, 'verify-email');
    await client.post('/v0/auth/verify-email', { token });
    await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    expect((await client.request('DELETE', '/v0/users/me', { json: { password: PASSWORD } })).status).toBe(204);

    const userId = registered.body.id;
    const mine = () => downstream.handled.filter((event) => JSON.stringify(event).includes(userId));
    await waitFor(() => (mine().length >= 3 ? true : undefined), { description: 'three events of the account' });
    const events = mine();
    expect(events.map((event) => event.type)).toEqual(['user.registered', 'user.email_verified', 'user.deleted']);
    expect(events[0]).toMatchObject({ version: 1, userRegistered: { userId, method: 'password' }, occurredAt: expect.any(Date) });
    expect(events[2]).toMatchObject({ userDeleted: { userId, reason: 'user' } });
    // The refused first delivery came again and was dropped by its id, not handled twice.
    expect(downstream.deliveries.length).toBeGreaterThan(downstream.handled.length);
    expect(new Set(downstream.handled.map((event) => event.id)).size).toBe(downstream.handled.length);
    const text = JSON.stringify(events);
    expect(text).not.toContain(account.email);
    expect(text).not.toContain(token);
    await downstream.close();
  });

  it('announces posts created, updated and deleted, and sessions revoked by a password change', async () => {
    const posts = await subscribe('events.post.>', 'feeds');
    const sessions = await subscribe('events.session.>', 'security');
    const account = newAccount('poster');
    const client = new ApiClient(stack.gatewayUrl);
    const { body } = await client.post<{ id: string }>('/v0/users', account);
    await client.post('/v0/auth/verify-email', { token: await mailedToken(stack, account.email, 'verify-email') });
    await client.post('/v0/auth/login', { email: account.email, password: PASSWORD });
    const created = await client.post<{ id: string }>('/v0/posts', { title: 'Hello', content: 'first' });
    await client.request('PATCH', `/v0/posts/${created.body.id}`, { json: { title: 'Hello again' } });
    await client.request('DELETE', `/v0/posts/${created.body.id}`);
    await client.post('/v0/auth/change-password', { current_password: PASSWORD, new_password: 'an entirely new passphrase' });

    await waitFor(() => (posts.handled.length >= 3 ? true : undefined), { description: 'three post events' });
    expect(posts.handled.map((event) => [event.type, event.postCreated ?? event.postUpdated ?? event.postDeleted])).toEqual([
      ['post.created', { postId: created.body.id, authorId: body.id }],
      ['post.updated', { postId: created.body.id, authorId: body.id }],
      ['post.deleted', { postId: created.body.id, authorId: body.id }],
    ]);
    await waitFor(() => sessions.handled.find((event) => event.sessionRevoked?.userId === body.id), { description: 'the session.revoked event' });
    expect(sessions.handled.find((event) => event.sessionRevoked?.userId === body.id)?.sessionRevoked?.reason).toBe('password_changed');
    await Promise.all([posts.close(), sessions.close()]);
  });
});
