import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { eventsV1 } from '@latchkey/contracts';
import { migrateServiceSchema } from '@latchkey/outbox';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, type TestDatabase } from '@latchkey/test-kit';
import { EVENT_VERSION, eventSubject, eventTypes, payloadFieldOf, queueEvent } from './domain-events';

const schema = 'events_test';
const context = { requestId: 'domain-events-test' };
let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('domain_events');
  const logger = createLogger({ service: 'domain-events-test', level: 'silent' });
  await migrateServiceSchema({ databaseUrl: database.url, schema, directory: mkdtempSync(path.join(tmpdir(), 'domain-events-')), logger });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await database.drop();
});

/** Runs `work` in a transaction on the service's schema, as a service's domain function does. */
async function inTransaction<T>(work: () => Promise<T>, outcome: 'COMMIT' | 'ROLLBACK'): Promise<T> {
  await client.query('BEGIN');
  await client.query(`SET LOCAL search_path TO ${schema}`);
  const result = await work();
  await client.query(outcome);
  return result;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
}

const rowOf = async (id: string): Promise<OutboxRow | undefined> =>
  (await client.query<OutboxRow>(`SELECT id, subject, payload, headers FROM ${schema}.outbox WHERE id = $1`, [id])).rows[0];

test('every payload of events.v1.Event has its type, named as the proto names the field', () => {
  const proto = readFileSync(path.resolve(__dirname, '../../../proto/events/v1/events.proto'), 'utf8');
  const oneof = /oneof payload \{([^}]*)\}/.exec(proto)![1]!;
  const fields = [...oneof.matchAll(/^\s*\w+ (\w+) = \d+;/gm)].map(([, field]) => field!);
  expect(eventTypes.map((type) => type.replaceAll('.', '_'))).toEqual(fields);
  for (const type of eventTypes) {
    const camel = type.replace(/[._](\w)/g, (_match, letter: string) => letter.toUpperCase());
    expect(payloadFieldOf(type)).toBe(camel);
    expect(eventSubject(type)).toBe(`events.${type}`);
  }
});

test('an event queued in a committed transaction waits in the outbox as the proto3 JSON of its envelope, under its id and request', async () => {
  const before = Date.now();
  const id = await inTransaction(
    () => queueEvent(client, 'session.revoked', { userId: 'user-1', reason: 'logout', sessionIds: ['s-1'], keptSessionId: '' }, context),
    'COMMIT',
  );
  const row = await rowOf(id);
  expect(row).toMatchObject({ subject: 'events.session.revoked', headers: { 'x-request-id': context.requestId } });

  const event = eventsV1.Event.fromJSON(row!.payload);
  expect(event).toMatchObject({
    id,
    type: 'session.revoked',
    version: EVENT_VERSION,
    requestId: context.requestId,
    sessionRevoked: { userId: 'user-1', reason: 'logout', sessionIds: ['s-1'], keptSessionId: '' },
  });
  expect(event.occurredAt!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
  // The body docs/events.md promises: the envelope and one payload field, named for the type.
  expect(Object.keys(row!.payload as object).sort()).toEqual(['id', 'occurredAt', 'requestId', 'sessionRevoked', 'type', 'version']);
});

test('an event of a change that rolls back never exists', async () => {
  const id = await inTransaction(() => queueEvent(client, 'post.deleted', { postId: 'post-1', authorId: 'user-1' }, context), 'ROLLBACK');
  expect(await rowOf(id)).toBeUndefined();
});
