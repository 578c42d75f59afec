import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { connect, headers as natsHeaders, type JetStreamManager, type NatsConnection } from 'nats';
import pg from 'pg';
import { jobSubjects } from '@latchkey/jobs-contract';
import { ensureStreams, topology } from '@latchkey/job-streams';
import { createTestDatabase, freePort, runNodeScript, testNatsUrl, uniqueName, type TestDatabase } from '@latchkey/test-kit';
import { migrateJobsSchema } from '../../src';

/**
 * `jobs dlq` as an operator runs it (docs/operations.md, "Dead letters" and
 * "Audit"): a replay is recorded with the person who asked, before it
 * happens, in an audit log that only grows.
 */
const prefix = uniqueName('jobs_dlq');
const names = topology(prefix);
const cli = path.resolve(__dirname, '../../dist/dead-letter-cli.js');

let database: TestDatabase;
let pool: pg.Pool;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  database = await createTestDatabase('jobs_dlq');
  await migrateJobsSchema(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2, options: '-c search_path=jobs' });
  nc = await connect({ servers: testNatsUrl() });
  jsm = await nc.jetstreamManager();
  await ensureStreams(jsm, prefix);
});

afterAll(async () => {
  for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) await jsm?.streams.delete(stream).catch(() => undefined);
  await nc?.drain();
  await pool?.end();
  await database?.drop();
});

/** A mail job parked as the worker parks one; answers its sequence in the dead-letter stream and its job id. */
async function park(): Promise<{ seq: number; jobId: string }> {
  const jobId = randomUUID();
  const h = natsHeaders();
  h.set('x-original-subject', names.subject(jobSubjects.sendMail));
  h.set('x-original-msg-id', jobId);
  h.set('x-dead-letter-reason', 'failed 5 deliveries: smtp down');
  h.set('x-deliveries', '5');
  const ack = await nc.jetstream().publish(names.deadLetterSubject(jobSubjects.sendMail), JSON.stringify({ template: 'security_notice' }), { headers: h });
  return { seq: ack.seq, jobId };
}

function dlq(args: string[], env: Record<string, string> = {}) {
  return runNodeScript(cli, args, { PATH: process.env.PATH, NATS_URL: testNatsUrl(), NATS_SUBJECT_PREFIX: prefix, DATABASE_URL: database.url, ...env });
}

const parked = async (seq: number) => (await jsm.streams.getMessage(names.deadLetterStream, { seq }).catch(() => undefined)) !== undefined;

/** The ids of the jobs waiting on the jobs stream. */
async function queuedJobIds(): Promise<string[]> {
  const { state } = await jsm.streams.info(names.jobsStream);
  const ids: string[] = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
    const message = await jsm.streams.getMessage(names.jobsStream, { seq }).catch(() => undefined);
    if (message) ids.push(message.header.get('Nats-Msg-Id'));
  }
  return ids;
}

it('records who replayed which job, from where, before putting it back; `audit` shows it', async () => {
  const { seq, jobId } = await park();
  const listed = await dlq(['list'], { DATABASE_URL: '' });
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(`"jobId":"${jobId}"`);

  const replayed = await dlq(['replay', String(seq), '--operator', 'Zoë Ops']);
  expect(replayed).toMatchObject({ code: 0, stdout: `${JSON.stringify({ replayed: seq, subject: names.subject(jobSubjects.sendMail) })}\n` });
  expect(await parked(seq)).toBe(false);
  expect(await queuedJobIds()).toContain(`replay-${seq}-${jobId}`);

  const second = await park();
  expect((await dlq(['replay', String(second.seq)])).code).toBe(0);

  const audit = await dlq(['audit']);
  expect(audit.code).toBe(0);
  const entries = audit.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(entries).toEqual([
    expect.objectContaining({ operator: userInfo().username, host: hostname(), action: 'replay', seq: second.seq, jobId: second.jobId }),
    expect.objectContaining({ operator: 'Zoë Ops', host: hostname(), action: 'replay', seq, subject: names.subject(jobSubjects.sendMail), jobId }),
  ]);
});

it('replays nothing when the replay cannot be recorded, or names no one', async () => {
  const { seq, jobId } = await park();
  const unreachable = await dlq(['replay', String(seq), '--operator', 'ada'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/latchkey` });
  expect(unreachable.code).toBe(1);
  const nameless = await dlq(['replay', String(seq), '--operator', ' ']);
  expect(nameless.code).toBe(2);
  expect(nameless.stderr).toMatch(/^--operator must name the person at the keyboard/);

  expect(await parked(seq)).toBe(true);
  expect(await queuedJobIds()).not.toContain(`replay-${seq}-${jobId}`);
  const { rows } = await pool.query('SELECT 1 FROM dead_letter_audit_log WHERE dead_letter_seq = $1', [seq]);
  expect(rows).toEqual([]);
});

it('keeps the audit log append-only for the unit’s own database role: UPDATE, DELETE and TRUNCATE each fail', async () => {
  const { seq } = await park();
  expect((await dlq(['replay', String(seq), '--operator', 'evidence'])).code).toBe(0);
  for (const statement of [
    `UPDATE dead_letter_audit_log SET operator = 'someone else' WHERE dead_letter_seq = ${seq}`,
    `DELETE FROM dead_letter_audit_log WHERE dead_letter_seq = ${seq}`,
    'DELETE FROM dead_letter_audit_log WHERE false',
    'TRUNCATE dead_letter_audit_log',
  ]) {
    await expect(pool.query(statement)).rejects.toMatchObject({ code: '42501', message: expect.stringMatching(/append-only/) });
  }
  const { rows } = await pool.query<{ operator: string }>('SELECT operator FROM dead_letter_audit_log WHERE dead_letter_seq = $1', [seq]);
  expect(rows).toEqual([{ operator: 'evidence' }]);
});
