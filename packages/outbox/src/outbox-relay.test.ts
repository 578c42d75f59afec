import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import pg from 'pg';
import { ensureStreams, topology } from '@latchkey/job-streams';
import { createLogger } from '@latchkey/telemetry';
import { createTestDatabase, testNatsUrl, uniqueName, waitFor, type TestDatabase } from '@latchkey/test-kit';
import { enqueueJob } from './enqueue';
import { migrateServiceSchema } from './migrate-service-schema';
import { OutboxRelay } from './outbox-relay';

const schema = 'orders';
/** The request that caused the jobs: the outbox takes what it needs of the context itself. */
const context = { requestId: 'req-1' };
const logLines: string[] = [];
const logger = createLogger({
  service: 'outbox-test',
  level: 'warn',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
});
let database: TestDatabase;
let pool: pg.Pool;
let nats: NatsConnection;
let jsm: JetStreamManager;
let prefix: string;
let relay: OutboxRelay;

beforeAll(async () => {
  database = await createTestDatabase('outbox');
  // A service with no migrations of its own: the outbox table alone.
  await migrateServiceSchema({ databaseUrl: database.url, schema, directory: mkdtempSync(path.join(tmpdir(), 'outbox-')), logger });
  pool = new pg.Pool({ connectionString: database.url, options: `-c search_path=${schema}` });
  nats = await connect({ servers: testNatsUrl() });
  jsm = await nats.jetstreamManager();
});

beforeEach(async () => {
  prefix = uniqueName('outbox').replace(/[^a-z0-9]/gi, '_').toLowerCase();
  await ensureStreams(jsm, prefix);
  relay = new OutboxRelay({ pool, listenUrl: database.url, schema, jetstream: nats.jetstream(), subjectPrefix: prefix, logger, pollIntervalMs: 50 });
});

afterEach(async () => {
  await relay.stop();
  const names = topology(prefix);
  for (const stream of [names.jobsStream, names.deadLetterStream]) await jsm.streams.delete(stream);
  await pool.query('DELETE FROM outbox');
});

afterAll(async () => {
  await pool.end();
  await nats.close();
  await database.drop();
});

async function inTransaction(work: (client: pg.PoolClient) => Promise<void>, outcome: 'COMMIT' | 'ROLLBACK'): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query(outcome);
  } finally {
    client.release();
  }
}

const storedJobs = async (): Promise<number> => (await jsm.streams.info(topology(prefix).jobsStream)).state.messages;
const outboxRows = async (): Promise<number> => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM outbox')).rows[0]!.n);

test('a job enqueued in a committed transaction reaches JetStream on the prefixed subject, with its headers, and leaves the outbox', async () => {
  let id = '';
  await inTransaction(async (client) => {
    id = await enqueueJob(client, 'jobs.mail.send', { to: 'a@example.com' }, context);
  }, 'COMMIT');
  relay.start();

  await waitFor(async () => ((await storedJobs()) === 1 ? true : undefined), { description: 'the job in the stream' });
  const message = await jsm.streams.getMessage(topology(prefix).jobsStream, { last_by_subj: `${prefix}.jobs.mail.send` });
  expect(message.json()).toEqual({ to: 'a@example.com' });
  expect(message.header.get('Nats-Msg-Id')).toBe(id);
  expect(message.header.get('x-request-id')).toBe('req-1');
  await waitFor(async () => ((await outboxRows()) === 0 ? true : undefined), { description: 'the row deleted' });
});

test('a job enqueued in a transaction that rolls back is never published', async () => {
  relay.start();
  await inTransaction(async (client) => {
    await enqueueJob(client, 'jobs.mail.send', { to: 'lost@example.com' }, context);
  }, 'ROLLBACK');
  await inTransaction(async (client) => {
    await enqueueJob(client, 'jobs.search.index', { marker: true }, context);
  }, 'COMMIT');

  // The committed job after it went out, so the relay has had its chance at both.
  await waitFor(async () => ((await storedJobs()) >= 1 ? true : undefined), { description: 'the committed job' });
  expect(await storedJobs()).toBe(1);
  const message = await jsm.streams.getMessage(topology(prefix).jobsStream, { seq: 1 });
  expect(message.json()).toEqual({ marker: true });
});

test('a row published again after a crash between publish and delete is stored once, by the id its caller chose', async () => {
  const id = randomUUID();
  await inTransaction(async (client) => {
    expect(await enqueueJob(client, 'jobs.mail.send', { to: 'once@example.com' }, context, { id })).toBe(id);
  }, 'COMMIT');
  // As if an earlier relay had published the row and died before deleting it.
  await nats.jetstream().publish(`${prefix}.jobs.mail.send`, JSON.stringify({ to: 'once@example.com' }), { msgID: id });
  relay.start();

  await waitFor(async () => ((await outboxRows()) === 0 ? true : undefined), { description: 'the row relayed' });
  expect(await storedJobs()).toBe(1);
});

test('while JetStream refuses, rows stay in the outbox; they go out once it accepts again', async () => {
  const names = topology(prefix);
  await jsm.streams.delete(names.jobsStream);
  await inTransaction(async (client) => {
    await enqueueJob(client, 'jobs.mail.send', { to: 'later@example.com' }, context);
  }, 'COMMIT');
  logLines.length = 0;
  relay.start();
  // No stream captures the subject (the worker, which owns the streams, has not run): the publish fails, and the row must survive the attempt.
  await waitFor(async () => (logLines.some((line) => line.includes('no stream takes its jobs yet (the jobs worker creates them)')) ? true : undefined), {
    description: 'a failed publish',
  });
  expect(await outboxRows()).toBe(1);

  await ensureStreams(jsm, prefix);
  relay.kick();
  await waitFor(async () => ((await storedJobs()) === 1 ? true : undefined), { description: 'the job published after the stream is back', timeoutMs: 15_000 });
  // The relay deletes a row once JetStream has acknowledged it: just after the stream holds the job.
  await waitFor(async () => ((await outboxRows()) === 0 ? true : undefined), { description: 'the row deleted after its acknowledgement' });
  expect(await storedJobs()).toBe(1);
});
