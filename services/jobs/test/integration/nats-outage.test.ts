import { randomBytes, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { jobSubjects } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  startOwnNatsServer,
  startSmtpSink,
  tokenFromMail,
  uniqueName,
  waitFor,
  type OwnNatsServer,
  type SmtpSink,
  type TestDatabase,
  testRedisUrl,
} from '@latchkey/test-kit';
import { loadJobsConfig, migrateJobsSchema, startWorker, type Worker } from '../../src';

// The broker goes away in this file, so it runs one of its own.
let broker: OwnNatsServer;
let database: TestDatabase;
let sink: SmtpSink;
let nc: NatsConnection;
let worker: Worker;
const prefix = uniqueName('jobs_outage');
const names = topology(prefix);

async function readyStatus(): Promise<number> {
  return (await fetch(`http://127.0.0.1:${worker.metricsPort}/readyz`)).status;
}

async function publishVerification(to: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await nc.jetstream().publish(
    names.subject(jobSubjects.sendMail),
    JSON.stringify({ template: 'verify_email', to, handle: 'ada', token }),
    { msgID: randomUUID() },
  );
  return token;
}

beforeAll(async () => {
  [broker, database, sink] = await Promise.all([startOwnNatsServer(), createTestDatabase('jobs_outage'), startSmtpSink()]);
  await migrateJobsSchema(database.url);
  const config = loadJobsConfig({
    DATABASE_URL: database.url,
    NATS_URL: broker.url,
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    SMTP_URL: sink.url,
    PUBLIC_APP_URL: 'http://app.example.test',
    METRICS_PORT: '0',
  });
  worker = await startWorker(config, createLogger({ service: 'jobs', level: 'silent' }));
  nc = await connect({ servers: broker.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
});

afterAll(async () => {
  await worker?.stop();
  await nc?.close();
  await broker?.destroy();
  await sink?.close();
  await database?.drop();
});

it('reports not ready while NATS is down and sends mail again once it is back', async () => {
  const before = `before-${randomBytes(4).toString('hex')}@example.test`;
  const beforeToken = await publishVerification(before);
  expect(tokenFromMail(await sink.waitForMail(before), 'verify-email')).toBe(beforeToken);
  expect(await readyStatus()).toBe(200);

  await broker.stop();
  await waitFor(async () => ((await readyStatus()) === 503 ? true : undefined), { description: '/readyz to fail' });

  await broker.start();
  await waitFor(async () => ((await readyStatus()) === 200 ? true : undefined), {
    timeoutMs: 15_000,
    description: '/readyz to recover',
  });
  const after = `after-${randomBytes(4).toString('hex')}@example.test`;
  const afterToken = await waitFor(() => publishVerification(after), { timeoutMs: 10_000, description: 'a publish' });
  expect(tokenFromMail(await sink.waitForMail(after, undefined, 15_000), 'verify-email')).toBe(afterToken);
});
