import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { connect, headers as natsHeaders, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import pg from 'pg';
import { jobSubjects, type MailJob } from '@latchkey/jobs-contract';
import { topology } from '@latchkey/job-streams';
import { createLogger } from '@latchkey/telemetry';
import {
  createTestDatabase,
  freePort,
  startSmtpSink,
  testNatsUrl,
  tokenFromMail,
  uniqueName,
  waitFor,
  type SmtpSink,
  type TestDatabase,
  testRedisUrl,
} from '@latchkey/test-kit';
import { DeadLetters } from '../../src/dead-letters';
import { loadJobsConfig, messageIdForJob, migrateJobsSchema, startWorker, type Worker } from '../../src';
import { startTcpForwarder, type TcpForwarder } from './tcp-forwarder';

const APP = 'http://app.example.test:8080';

let database: TestDatabase;
let pool: pg.Pool;
let nc: NatsConnection;
let jsm: JetStreamManager;
let js: JetStreamClient;
let sink: SmtpSink;

/** One worker under test, on a NATS prefix of its own unless a test shares one to restart a worker. */
interface Harness {
  readonly worker: Worker;
  readonly prefix: string;
  readonly names: ReturnType<typeof topology>;
  /** Everything the worker logged, as JSON lines. */
  logs(): string;
  publish(payload: unknown, msgID?: string): Promise<string>;
  metric(outcome: string): Promise<number>;
}

const harnesses: Harness[] = [];
const forwarders: TcpForwarder[] = [];

async function startHarness(env: Record<string, string> = {}, prefix = uniqueName('jobs')): Promise<Harness> {
  const names = topology(prefix);
  let logged = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const config = loadJobsConfig({
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    SMTP_URL: sink.url,
    MAIL_FROM: 'Latchkey <no-reply@example.test>',
    PUBLIC_APP_URL: APP,
    METRICS_PORT: '0',
    JOBS_RETRY_BASE_MS: '50',
    JOBS_MAX_DELIVERIES: '3',
    ...env,
  });
  const worker = await startWorker(config, createLogger({ service: 'jobs', level: 'debug', destination }));
  const harness: Harness = {
    worker,
    prefix,
    names,
    logs: () => logged,
    async publish(payload, msgID = randomUUID()) {
      const h = natsHeaders();
      h.set('x-request-id', `req-${msgID}`);
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      // As the outbox relay publishes: the outbox row id is the Nats-Msg-Id.
      await js.publish(names.subject(jobSubjects.sendMail), body, { msgID, headers: h });
      return msgID;
    },
    async metric(outcome) {
      const text = await (await fetch(`http://127.0.0.1:${worker.metricsPort}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('jobs_processed_total{') && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    },
  };
  harnesses.push(harness);
  return harness;
}

function mailJob(template: 'verify_email' | 'reset_password' | 'confirm_email_change', to: string): MailJob & { token: string } {
  return { template, to, handle: 'ada', token: randomBytes(32).toString('base64url') };
}

function address(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.test`;
}

async function completedJobIds(): Promise<string[]> {
  const { rows } = await pool.query<{ job_id: string }>('SELECT job_id FROM jobs.completed_jobs');
  return rows.map((r) => r.job_id);
}

async function queuedJobs(harness: Harness): Promise<number> {
  return (await jsm.streams.info(harness.names.jobsStream)).state.messages;
}

async function deadLetters(harness: Harness, count: number) {
  const stream = harness.names.deadLetterStream;
  await waitFor(async () => ((await jsm.streams.info(stream)).state.messages >= count ? true : undefined), {
    description: `${count} dead letters`,
  });
  const info = await jsm.streams.info(stream);
  const letters = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const message = await jsm.streams.getMessage(stream, { seq });
    letters.push({ subject: message.subject, header: (key: string) => message.header.get(key), body: message.string() });
  }
  return letters;
}

beforeAll(async () => {
  database = await createTestDatabase('jobs');
  await migrateJobsSchema(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  nc = await connect({ servers: testNatsUrl() });
  jsm = await nc.jetstreamManager();
  js = nc.jetstream();
  sink = await startSmtpSink();
});

afterEach(async () => {
  const stopped = harnesses.splice(0);
  for (const harness of stopped) await harness.worker.stop();
  for (const { names } of stopped) {
    // Two harnesses may share a prefix; the second delete finds nothing.
    await jsm.streams.delete(names.jobsStream).catch(() => undefined);
    await jsm.streams.delete(names.deadLetterStream).catch(() => undefined);
  }
  for (const forwarder of forwarders.splice(0)) await forwarder.close();
});

afterAll(async () => {
  await sink?.close();
  await nc?.drain();
  await pool?.end();
  await database?.drop();
});

describe('jobs worker: mail', () => {
  it('sends a published mail job with the link, records it, and logs no token', async () => {
    const harness = await startHarness();
    const to = address('verify');
    const job = mailJob('verify_email', to);
    const jobId = await harness.publish(job);

    const mail = await sink.waitForMail(to);
    expect(mail.subject).toBe('Verify your email address');
    expect(mail.from).toContain('no-reply@example.test');
    expect(mail.text).toContain(`${APP}/verify-email?token=${job.token}`);
    expect(tokenFromMail(mail, 'verify-email')).toBe(job.token);
    expect(mail.messageId).toBe(messageIdForJob(jobId));

    await waitFor(async () => ((await completedJobIds()).includes(jobId) ? true : undefined));
    await waitFor(async () => ((await queuedJobs(harness)) === 0 ? true : undefined), { description: 'the job acked' });
    await waitFor(async () => ((await harness.metric('completed')) === 1 ? true : undefined));

    const ready = await fetch(`http://127.0.0.1:${harness.worker.metricsPort}/readyz`);
    expect(ready.status).toBe(200);

    const logs = harness.logs();
    expect(logs).toContain(jobId);
    expect(logs).toContain(`req-${jobId}`);
    expect(logs).not.toContain(job.token);
    expect(logs).not.toContain('verify-email?token');
  });

  it('sends no second mail for a job id already recorded as completed', async () => {
    // One job at a time, so the control mail arriving means the earlier job was handled.
    const harness = await startHarness({ JOBS_CONCURRENCY: '1' });
    const doneId = randomUUID();
    await pool.query('INSERT INTO jobs.completed_jobs (job_id) VALUES ($1)', [doneId]);
    const duplicateTo = address('duplicate');
    const controlTo = address('control');

    await harness.publish(mailJob('reset_password', duplicateTo), doneId);
    await harness.publish(mailJob('reset_password', controlTo));

    await sink.waitForMail(controlTo);
    await waitFor(async () => ((await harness.metric('duplicate')) === 1 ? true : undefined));
    expect(sink.mails.filter((m) => m.to.includes(duplicateTo))).toHaveLength(0);
    // The control mail is in the sink before its job is acked.
    await waitFor(async () => ((await queuedJobs(harness)) === 0 ? true : undefined), { description: 'both jobs acked' });
  });

  it('retries while SMTP is down and delivers once it is up', async () => {
    const smtpPort = await freePort();
    const harness = await startHarness({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, JOBS_MAX_DELIVERIES: '20' });
    const to = address('later');
    const job = mailJob('confirm_email_change', to);
    const jobId = await harness.publish(job);

    await waitFor(async () => ((await harness.metric('retried')) >= 2 ? true : undefined), {
      description: 'two failed deliveries',
    });
    expect(sink.mails.filter((m) => m.to.includes(to))).toHaveLength(0);

    const sinkPort = Number(new URL(sink.url).port);
    forwarders.push(await startTcpForwarder(smtpPort, { host: '127.0.0.1', port: sinkPort }));

    const mail = await sink.waitForMail(to);
    expect(tokenFromMail(mail, 'confirm-email-change')).toBe(job.token);
    await waitFor(async () => ((await completedJobIds()).includes(jobId) ? true : undefined));
    await waitFor(async () => ((await queuedJobs(harness)) === 0 ? true : undefined), { description: 'the job acked' });
    expect(sink.mails.filter((m) => m.to.includes(to))).toHaveLength(1);
  });

  it('parks a job that keeps failing on the dead-letter subject after JOBS_MAX_DELIVERIES, without its token', async () => {
    const closedPort = await freePort();
    const harness = await startHarness({ SMTP_URL: `smtp://127.0.0.1:${closedPort}`, JOBS_MAX_DELIVERIES: '3' });
    const job = mailJob('reset_password', address('never'));
    const jobId = await harness.publish(job);

    const [letter] = await deadLetters(harness, 1);
    expect(letter!.subject).toBe(harness.names.deadLetterSubject(jobSubjects.sendMail));
    expect(letter!.header('x-original-subject')).toBe(harness.names.subject(jobSubjects.sendMail));
    expect(letter!.header('x-original-msg-id')).toBe(jobId);
    expect(letter!.header('x-deliveries')).toBe('3');
    expect(letter!.header('x-request-id')).toBe(`req-${jobId}`);
    expect(letter!.header('x-dead-letter-reason')).toMatch(/^failed 3 deliveries, last error: .*ECONNREFUSED/);
    expect(JSON.parse(letter!.body)).toEqual({ ...job, token: '[redacted]' });

    await waitFor(async () => ((await queuedJobs(harness)) === 0 ? true : undefined), { description: 'the job removed' });
    expect(await harness.metric('retried')).toBe(2);
    expect(await harness.metric('dead_lettered')).toBe(1);
    expect(await completedJobIds()).not.toContain(jobId);
    expect(harness.logs()).not.toContain(job.token);
  });

  it('lists parked jobs, counts them in a gauge, and replays one onto its original subject', async () => {
    const closedPort = await freePort();
    const harness = await startHarness({ SMTP_URL: `smtp://127.0.0.1:${closedPort}`, JOBS_MAX_DELIVERIES: '2' });
    const job: MailJob = { template: 'security_notice', to: address('replayed'), handle: 'ada', notice: 'password_changed' };
    const jobId = await harness.publish(job);
    await deadLetters(harness, 1);
    const gauge = async () => {
      const text = await (await fetch(`http://127.0.0.1:${harness.worker.metricsPort}/metrics`)).text();
      return Number(/^jobs_dead_letters(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1]);
    };
    expect(await gauge()).toBe(1);

    const letters = new DeadLetters(jsm, js, harness.prefix);
    const [letter] = await letters.list();
    expect(letter).toMatchObject({ subject: harness.names.subject(jobSubjects.sendMail), deliveries: 2, reason: expect.stringMatching(/^failed 2 deliveries/) });
    expect(JSON.stringify(letter)).not.toContain(job.to);

    // Replayed, the job runs again (and, the mail server still being down, is parked again).
    const retriedBefore = await harness.metric('retried');
    expect(await letters.replay(letter!.seq)).toBe(harness.names.subject(jobSubjects.sendMail));
    await waitFor(async () => ((await harness.metric('retried')) > retriedBefore ? true : undefined), { description: 'the replayed job run' });
    const again = await deadLetters(harness, 1);
    expect(again).toHaveLength(1);
    expect(again[0]!.header('x-original-msg-id')).toBe(`replay-${letter!.seq}-${jobId}`);
  });

  it('parks an invalid payload at once', async () => {
    const harness = await startHarness({ JOBS_MAX_DELIVERIES: '5' });
    const wrongShape = { template: 'verify_email', to: 'not-an-address', handle: 'ada', token: randomBytes(32).toString('base64url') };
    const wrongId = await harness.publish(wrongShape);
    const notJsonId = await harness.publish('token=secret-not-json');

    const letters = await deadLetters(harness, 2);
    const byId = (id: string) => letters.find((l) => l.header('x-original-msg-id') === id)!;
    expect(byId(wrongId).header('x-deliveries')).toBe('1');
    expect(byId(wrongId).header('x-dead-letter-reason')).toMatch(/^invalid payload: to: /);
    expect(JSON.parse(byId(wrongId).body)).toEqual({ ...wrongShape, token: '[redacted]' });
    expect(byId(notJsonId).header('x-dead-letter-reason')).toBe('invalid payload: not JSON');
    expect(byId(notJsonId).body).toBe('');

    await waitFor(async () => ((await queuedJobs(harness)) === 0 ? true : undefined), { description: 'the jobs removed' });
    expect(await harness.metric('invalid')).toBe(2);
    expect(harness.logs()).not.toContain(wrongShape.token);
    expect(harness.logs()).not.toContain('secret-not-json');
  });

  it('runs at most JOBS_CONCURRENCY jobs at once', async () => {
    const smtpPort = await freePort();
    const sinkPort = Number(new URL(sink.url).port);
    // Slow greetings keep each job busy long enough for the others to pile up if they could.
    const slow = await startTcpForwarder(smtpPort, { host: '127.0.0.1', port: sinkPort }, { delayMs: 300 });
    forwarders.push(slow);
    const harness = await startHarness({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, JOBS_CONCURRENCY: '2' });
    const recipients = [1, 2, 3, 4, 5].map((n) => address(`batch${n}`));
    for (const to of recipients) await harness.publish(mailJob('verify_email', to));

    for (const to of recipients) await sink.waitForMail(to);
    expect(slow.mostOpen).toBe(2);
  });

  it('leaves jobs published while no worker runs to the next worker', async () => {
    const prefix = uniqueName('jobs');
    const first = await startHarness({}, prefix);
    await first.worker.stop();
    const to = address('restart');
    const job = mailJob('verify_email', to);
    await first.publish(job);

    // The durable consumer exists now, so this start takes the update path.
    await startHarness({}, prefix);
    expect(tokenFromMail(await sink.waitForMail(to), 'verify-email')).toBe(job.token);
  });

  it('stop() waits for a job in flight and acknowledges it', async () => {
    const smtpPort = await freePort();
    const sinkPort = Number(new URL(sink.url).port);
    // The SMTP greeting comes a second late, so the job is still sending when stop() is called.
    const slow = await startTcpForwarder(smtpPort, { host: '127.0.0.1', port: sinkPort }, { delayMs: 1_000 });
    forwarders.push(slow);
    const harness = await startHarness({ SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
    const to = address('inflight');
    const jobId = await harness.publish(mailJob('verify_email', to));

    await waitFor(() => (slow.connections > 0 ? true : undefined), { description: 'the job to start sending' });
    expect(sink.mails.filter((m) => m.to.includes(to))).toHaveLength(0);
    await harness.worker.stop();

    expect(sink.mails.filter((m) => m.to.includes(to))).toHaveLength(1);
    expect(await completedJobIds()).toContain(jobId);
    expect(await queuedJobs(harness)).toBe(0);
    expect(harness.logs()).toContain('"jobs in flight finished"');
  });
});
