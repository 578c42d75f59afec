import { connect, RetentionPolicy, type NatsConnection } from 'nats';
import { testNatsUrl, uniqueName } from '@latchkey/test-kit';
import { ensureStreams, topology } from './job-streams';

let nats: NatsConnection;
let prefix: string;

beforeAll(async () => {
  nats = await connect({ servers: testNatsUrl() });
});

beforeEach(() => {
  // Stream names are upper-cased prefixes: keep them valid and apart per test.
  prefix = uniqueName('streams').replace(/[^a-zA-Z0-9]/g, '_').toLowerCase();
});

afterEach(async () => {
  const jsm = await nats.jetstreamManager();
  const names = topology(prefix);
  for (const stream of [names.jobsStream, names.deadLetterStream]) await jsm.streams.delete(stream).catch(() => undefined);
});

afterAll(async () => {
  await nats.close();
});

test("names every stream, subject and consumer after the installation's prefix", () => {
  const names = topology('acme');
  expect(names).toMatchObject({ jobsStream: 'ACME_JOBS', deadLetterStream: 'ACME_DEAD', jobsFilter: 'acme.jobs.>', deadLetterFilter: 'acme.dead.>' });
  expect(names.subject('jobs.mail.send')).toBe('acme.jobs.mail.send');
  expect(names.deadLetterSubject('jobs.mail.send')).toBe('acme.dead.jobs.mail.send');
  expect(names.consumer('mail')).toBe('acme_mail');
});

test('creates a work-queue stream for jobs and a kept stream for dead letters', async () => {
  const jsm = await nats.jetstreamManager();
  await ensureStreams(jsm, prefix);
  const names = topology(prefix);
  const jobs = await jsm.streams.info(names.jobsStream);
  const dead = await jsm.streams.info(names.deadLetterStream);
  expect(jobs.config).toMatchObject({ subjects: [names.jobsFilter], retention: RetentionPolicy.Workqueue });
  expect(dead.config).toMatchObject({ subjects: [names.deadLetterFilter], retention: RetentionPolicy.Limits });
});

test('runs again at every start without losing queued jobs, and restores settings changed by hand', async () => {
  const jsm = await nats.jetstreamManager();
  await ensureStreams(jsm, prefix);
  const names = topology(prefix);
  await nats.jetstream().publish(names.subject('jobs.mail.send'), new TextEncoder().encode('{}'));
  await jsm.streams.update(names.jobsStream, { max_age: 24 * 60 * 60 * 1e9 });

  await ensureStreams(jsm, prefix);

  const jobs = await jsm.streams.info(names.jobsStream);
  expect(jobs.state.messages).toBe(1);
  expect(jobs.config.max_age).toBe(7 * 24 * 60 * 60 * 1e9);
});

test('says which stream and why when the servers cannot give it the replicas asked for', async () => {
  const jsm = await nats.jetstreamManager();
  // One server without a cluster: NATS_STREAM_REPLICAS=3 cannot be met, and waiting does not change that.
  await expect(ensureStreams(jsm, prefix, 3)).rejects.toThrow(
    new RegExp(`could not create stream ${topology(prefix).jobsStream} with 3 replicas \\(NATS_STREAM_REPLICAS\\)`),
  );
});
