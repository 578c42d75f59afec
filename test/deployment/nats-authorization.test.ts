// Each unit's own NATS user (docs/operations.md, "NATS permissions"): the
// chart and k8s/ grant what busPermissions (packages/job-streams) says, and a
// real NATS server with the chart's block lets each unit do its work and
// refuses the rest.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { busUsers, connectToBus, ensureStreams, streamOwner, topology, type BusUser } from '@latchkey/job-streams';
import { startOwnNatsServer, type OwnNatsServer } from '@latchkey/test-kit';
import { devValues, findObject, isHook, productionValues, renderChart, repoRoot, type K8sObject } from './helm';
import { containerEnvironment, mainContainer } from './workloads';
import { natsAuthorizationBlock, natsPasswordVariable } from '../support/nats-authorization';

const natsUnits = [...busUsers].sort();

function authorizationOf(objects: readonly K8sObject[]): string {
  const configMap = findObject(objects, 'ConfigMap', 'latchkey-nats-authorization');
  return (configMap.data as Record<string, string>)['authorization.conf']!;
}

const withoutComments = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .trim();

describe('the NATS users the chart and k8s/ define', () => {
  test('the chart renders busPermissions for the units that use NATS, under the installation’s prefix', () => {
    expect(withoutComments(authorizationOf(renderChart({ set: ['natsAuth.enabled=true'] })))).toBe(natsAuthorizationBlock('latchkey', natsUnits));
    const other = renderChart({ set: ['natsAuth.enabled=true', 'config.NATS_SUBJECT_PREFIX=acme'] });
    expect(withoutComments(authorizationOf(other))).toBe(natsAuthorizationBlock('acme', natsUnits));
    expect(renderChart().some((object) => object.metadata.name === 'latchkey-nats-authorization')).toBe(false);
  });

  test('each unit that uses NATS connects as itself with its own password; the gateway and the migrations have no NATS user', () => {
    for (const [variant, objects] of [
      ['dev', renderChart({ values: [devValues] })],
      ['production', renderChart({ values: [productionValues] })],
    ] as const) {
      for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || (candidate.kind === 'Job' && isHook(candidate)))) {
        const environment = containerEnvironment(objects, mainContainer(object));
        const unit = object.metadata.labels?.['app.kubernetes.io/component'] ?? '';
        const connectsAsItself = object.kind === 'Deployment' && (natsUnits as string[]).includes(unit);
        expect({ variant, object: object.metadata.name, user: environment.values.NATS_USER }).toEqual({
          variant,
          object: object.metadata.name,
          user: connectsAsItself ? unit : undefined,
        });
        if (!connectsAsItself) continue;
        if (variant === 'production') {
          expect(environment.external.get('NATS_PASSWORD')).toEqual({ secret: 'latchkey-nats-users', key: unit, optional: false });
        } else {
          expect(environment.values.NATS_PASSWORD).toBe(`latchkey-dev-nats-${unit}`);
        }
      }
    }
  });

  test('k8s/ runs NATS with the same users, and the passwords the dev values give the units', () => {
    const documents = parseAllDocuments(readFileSync(path.join(repoRoot, 'k8s', 'nats.yaml'), 'utf8')).map((document) => document.toJSON() as K8sObject);
    const config = (findObject(documents, 'ConfigMap', 'latchkey-nats-config').data as Record<string, string>)['nats.conf']!;
    expect(config).toContain(natsAuthorizationBlock('latchkey', natsUnits));
    const backing = parseAllDocuments(readFileSync(path.join(repoRoot, 'k8s', 'backing-secret.yaml'), 'utf8'))[0]!.toJSON() as {
      stringData: Record<string, string>;
    };
    const nats = mainContainer(findObject(documents, 'Deployment', 'latchkey-nats'));
    const dev = renderChart({ values: [devValues] });
    for (const unit of natsUnits) {
      const variable = nats.env?.find((candidate) => candidate.name === natsPasswordVariable(unit));
      const key = variable?.valueFrom?.secretKeyRef?.key ?? '';
      const unitPassword = containerEnvironment(dev, mainContainer(findObject(dev, 'Deployment', `latchkey-${unit}`))).values.NATS_PASSWORD;
      expect({ unit, password: backing.stringData[key] }).toEqual({ unit, password: unitPassword });
    }
  });
});

describe('a NATS server with the chart’s authorization block', () => {
  const prefix = 'latchkey';
  const names = topology(prefix);
  const password = (unit: string) => `password-of-${unit}`;
  let server: OwnNatsServer;

  beforeAll(async () => {
    const rendered = authorizationOf(renderChart({ set: ['natsAuth.enabled=true'] }));
    server = await startOwnNatsServer({
      config: rendered,
      env: Object.fromEntries(natsUnits.map((unit) => [natsPasswordVariable(unit), password(unit)])),
    });
  }, 30_000);

  afterAll(async () => {
    await server?.destroy();
  });

  const connectAs = (unit: BusUser, pass = password(unit)) =>
    connectToBus({ NATS_URL: server.url, NATS_USER: unit, NATS_PASSWORD: pass }, { name: `test-${unit}` });
  const body = new TextEncoder().encode('{}');

  test('lets only the worker create and update the streams, and no unit delete or purge one', async () => {
    expect(streamOwner).toBe('jobs');
    const worker = await connectAs('jobs');
    try {
      const jsm = await worker.jetstreamManager();
      await ensureStreams(jsm, prefix);
      // A second start brings the settings up to date, which is an update.
      await ensureStreams(jsm, prefix);
      for (const stream of [names.jobsStream, names.deadLetterStream, names.eventsStream]) {
        await expect(jsm.streams.purge(stream)).rejects.toThrow();
        await expect(jsm.streams.delete(stream)).rejects.toThrow();
      }
    } finally {
      await worker.close();
    }
    for (const unit of natsUnits.filter((candidate) => candidate !== streamOwner)) {
      const connection = await connectAs(unit);
      try {
        // Without $JS.API.INFO a manager cannot even be made: the producers have no stream API at all.
        const jsm = await connection.jetstreamManager({ checkAPI: false });
        await expect(jsm.streams.update(names.jobsStream, { max_age: 1e9 })).rejects.toThrow();
        await expect(jsm.streams.add({ name: `${names.jobsStream}_SHADOW`, subjects: [names.subject('jobs.shadow.>')] })).rejects.toThrow();
        await expect(jsm.streams.delete(names.eventsStream)).rejects.toThrow();
        await expect(jsm.streams.purge(names.jobsStream)).rejects.toThrow();
      } finally {
        await connection.close();
      }
    }
  });

  test('lets every producer publish its own jobs into the worker’s streams, and nothing else', async () => {
    const produced: Record<Exclude<BusUser, 'jobs'>, string[]> = {
      identity: ['jobs.mail.send', 'jobs.user.deleted', 'jobs.sessions.revoked'],
      oauth: ['jobs.mail.send'],
      totp: ['jobs.mail.send'],
      posts: ['jobs.search.index', 'jobs.content.delete'],
      passkeys: ['jobs.mail.send'],
    };
    const everyJob = [...new Set(Object.values(produced).flat())];
    for (const [unit, subjects] of Object.entries(produced) as [Exclude<BusUser, 'jobs'>, string[]][]) {
      const connection = await connectAs(unit);
      try {
        const jetstream = connection.jetstream();
        for (const subject of subjects) await expect(jetstream.publish(names.subject(subject), body)).resolves.toMatchObject({ stream: names.jobsStream });
        for (const subject of everyJob.filter((candidate) => !subjects.includes(candidate))) {
          // A forged job of another unit (posts sending user.deleted, say) never reaches the stream.
          await expect(jetstream.publish(names.subject(subject), body, { timeout: 2_000 })).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
        }
        await expect(jetstream.publish(names.deadLetterSubject('jobs.mail.send'), body, { timeout: 2_000 })).rejects.toMatchObject({
          code: 'PERMISSIONS_VIOLATION',
        });
      } finally {
        await connection.close();
      }
    }
  });

  test('lets only the worker read the jobs: consumers, acks and dead letters are its own', async () => {
    const worker = await connectAs('jobs');
    const posts = await connectAs('posts');
    try {
      const jsm = await worker.jetstreamManager();
      await ensureStreams(jsm, prefix);
      await posts.jetstream().publish(names.subject('jobs.search.index'), body);
      await jsm.consumers.add(names.jobsStream, { durable_name: names.consumer('probe'), filter_subject: names.subject('jobs.search.index'), ack_policy: 'explicit' as never });
      const consumer = await worker.jetstream().consumers.get(names.jobsStream, names.consumer('probe'));
      const message = await consumer.next({ expires: 5_000 });
      expect(message?.subject).toBe(names.subject('jobs.search.index'));
      await message!.ackAck();
      const parked = await worker.jetstream().publish(names.deadLetterSubject('jobs.search.index'), body);
      expect(parked.stream).toBe(names.deadLetterStream);
      // `pnpm jobs:dlq`, with the worker's user: read a dead letter, replay it, remove it.
      expect((await jsm.streams.getMessage(names.deadLetterStream, { seq: parked.seq })).subject).toBe(names.deadLetterSubject('jobs.search.index'));
      await expect(worker.jetstream().publish(names.subject('jobs.search.index'), body)).resolves.toMatchObject({ stream: names.jobsStream });
      await expect(jsm.streams.deleteMessage(names.deadLetterStream, parked.seq)).resolves.toBe(true);

      // Another unit cannot create a consumer, nor read the worker's inbox, where pulled jobs (mails with their tokens) arrive.
      await expect((await posts.jetstreamManager({ checkAPI: false })).consumers.add(names.jobsStream, { durable_name: 'thief' })).rejects.toThrow();
      const snoop = posts.subscribe('_INBOX_jobs.>');
      await expect((async () => {
        for await (const _ of snoop) return 'read';
        return 'ended';
      })()).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    } finally {
      await Promise.all([worker.close(), posts.close()]);
    }
  });

  test('refuses a wrong password', async () => {
    await expect(connectAs('identity', 'not-the-password')).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });
});
