import pg from 'pg';
import { z } from 'zod';
import { summarizeLatencies, round, type LatencySummary } from './latency-stats';
import type { RequestTemplate } from './load-messages';
import type { Seed } from './seed';
import type { WebhookReceivers } from './webhook-receiver-process';

/**
 * The webhooks scenario (issue 33): an organisation's events fanned out to
 * ten endpoints, nine that answer and one that is down, and how long each
 * message took from the event to its endpoint.
 */

/** The event the load causes: a member's role, toggled by the owner, which sends no mail. */
export const WEBHOOK_EVENT_TYPE = 'org.member.role_changed';
/** The organisation's endpoints besides the down one. */
export const LIVE_WEBHOOK_ENDPOINTS = 9;
/** How long after the last event the live endpoints may take to get every message. */
export const WEBHOOK_SETTLE_TIMEOUT_MS = 120_000;
const POLL_INTERVAL_MS = 250;

export interface WebhookEndpoint {
  readonly id: string;
  readonly live: boolean;
}

/** What the scenario's prepare made: the endpoints, subscribed to WEBHOOK_EVENT_TYPE, and who toggles whom. */
export interface WebhookSetup {
  readonly organizationId: string;
  readonly ownerCookie: string;
  readonly memberIds: readonly string[];
  readonly endpoints: readonly WebhookEndpoint[];
}

/** What the receivers got, for the report. */
export interface WebhookDeliveries {
  /** Events the load caused: messages per endpoint. */
  readonly events: number;
  readonly liveEndpoints: number;
  readonly downEndpoints: number;
  /** Messages to the live endpoints, and of those the ones received. */
  readonly expected: number;
  readonly delivered: number;
  /** Deliveries of a message its receiver already had. */
  readonly repeats: number;
  /** From the event's timestamp to its message's first receipt. */
  readonly delay: LatencySummary;
  /** Messages received per second, from the first event to the last first receipt. */
  readonly deliveriesPerSecond: number;
  /** Attempts identity recorded for the down endpoint meanwhile. */
  readonly downAttempts: number;
}

const endpointBody = z.object({ id: z.string() });

async function call(gatewayUrl: string, method: string, path: string, cookie: string, json?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { cookie: `session_id=${cookie}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, text: await response.text() };
}

/** Subscribes the receivers' live URLs and the down one to the seed organisation's role changes, as its owner does. */
export async function createWebhookEndpoints(gatewayUrl: string, seed: Seed, receivers: WebhookReceivers): Promise<WebhookSetup> {
  const owner = seed.users.find((user) => user.orgRole === 'owner');
  const members = seed.users.filter((user) => user.orgRole === 'member');
  if (!owner || members.length === 0) throw new Error('the webhooks scenario needs the seed organisation with an owner and members (--users ≥ 2)');
  const targets = [...receivers.liveUrls.map((url) => ({ url, live: true })), { url: receivers.downUrl, live: false }];
  const endpoints: WebhookEndpoint[] = [];
  for (const [index, target] of targets.entries()) {
    const created = await call(gatewayUrl, 'POST', `/v0/orgs/${seed.organizationId}/webhooks`, owner.cookie, {
      url: target.url,
      events: [WEBHOOK_EVENT_TYPE],
      description: `bench ${target.live ? 'receiver' : 'down endpoint'} ${index + 1}`,
    });
    if (created.status !== 201) throw new Error(`creating a webhook endpoint: expected 201, got ${created.status}: ${created.text.slice(0, 500)}`);
    endpoints.push({ id: endpointBody.parse(JSON.parse(created.text)).id, live: target.live });
  }
  return { organizationId: seed.organizationId, ownerCookie: owner.cookie, memberIds: members.map((member) => member.id), endpoints };
}

/**
 * The owner makes each member an admin, then a member again, in turn:
 * every request changes a role, so every one is an event. A member's two
 * changes are as many requests apart as there are members, so they do not
 * overtake each other.
 */
export function roleToggleRequests(setup: WebhookSetup): RequestTemplate[] {
  const headers = { 'content-type': 'application/json', cookie: `session_id=${setup.ownerCookie}` };
  return ['admin', 'member'].flatMap((role) =>
    setup.memberIds.map((userId) => ({
      method: 'PATCH' as const,
      path: `/v0/orgs/${setup.organizationId}/members/${userId}`,
      headers,
      body: JSON.stringify({ role }),
    })),
  );
}

async function countInDatabase(databaseUrl: string, setup: WebhookSetup): Promise<{ events: number; expected: number; downAttempts: number }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const live = setup.endpoints.filter((endpoint) => endpoint.live).map((endpoint) => endpoint.id);
    const down = setup.endpoints.filter((endpoint) => !endpoint.live).map((endpoint) => endpoint.id);
    const { rows } = await db.query<{ events: number; expected: number; down_attempts: number }>(
      `SELECT (SELECT count(DISTINCT event_id)::int FROM identity.webhook_messages WHERE endpoint_id = ANY($1::uuid[] || $2::uuid[])) AS events,
              (SELECT count(*)::int FROM identity.webhook_messages WHERE endpoint_id = ANY($1::uuid[])) AS expected,
              (SELECT count(*)::int FROM identity.webhook_attempts WHERE endpoint_id = ANY($2::uuid[])) AS down_attempts`,
      [live, down],
    );
    const row = rows[0]!;
    return { events: row.events, expected: row.expected, downAttempts: row.down_attempts };
  } finally {
    await db.end();
  }
}

/**
 * After the load: waits until the live receivers have every message the
 * events made (identity's table says how many), at most
 * WEBHOOK_SETTLE_TIMEOUT_MS, and answers the delays.
 */
export async function awaitWebhookDeliveries(
  databaseUrl: string,
  setup: WebhookSetup,
  receivers: WebhookReceivers,
  signal?: AbortSignal,
): Promise<WebhookDeliveries> {
  // Every request was answered, so every event's transaction, and its messages, committed.
  const { events, expected } = await countInDatabase(databaseUrl, setup);
  const deadline = Date.now() + WEBHOOK_SETTLE_TIMEOUT_MS;
  while ((await receivers.receivedMessages()) < expected && Date.now() < deadline) {
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  const received = await receivers.collect();
  const { downAttempts } = await countInDatabase(databaseUrl, setup);
  const seconds = (received.lastReceiptAt - received.firstEventAt) / 1000;
  return {
    events,
    liveEndpoints: setup.endpoints.filter((endpoint) => endpoint.live).length,
    downEndpoints: setup.endpoints.filter((endpoint) => !endpoint.live).length,
    expected,
    delivered: received.delaysMs.length,
    repeats: received.repeats,
    delay: summarizeLatencies(received.delaysMs),
    deliveriesPerSecond: seconds > 0 ? round(received.delaysMs.length / seconds, 1) : 0,
    downAttempts,
  };
}

/** Deletes the endpoints (and with them their pending messages), then gives every member back the role `member`. */
export async function removeWebhookEndpoints(gatewayUrl: string, setup: WebhookSetup): Promise<void> {
  for (const endpoint of setup.endpoints) {
    const deleted = await call(gatewayUrl, 'DELETE', `/v0/orgs/${setup.organizationId}/webhooks/${endpoint.id}`, setup.ownerCookie);
    if (deleted.status !== 204) throw new Error(`deleting a webhook endpoint: expected 204, got ${deleted.status}: ${deleted.text.slice(0, 500)}`);
  }
  for (const userId of setup.memberIds) {
    const restored = await call(gatewayUrl, 'PATCH', `/v0/orgs/${setup.organizationId}/members/${userId}`, setup.ownerCookie, { role: 'member' });
    if (restored.status !== 200) throw new Error(`restoring a member's role: expected 200, got ${restored.status}: ${restored.text.slice(0, 500)}`);
  }
}
