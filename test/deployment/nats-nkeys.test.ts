// natsAuth.mode nkey and creds (docs/operations.md, "NATS permissions"):
// what the chart renders in each mode, what `pnpm nats:keys` makes, and a
// real NATS server with the chart's NKey block that lets a unit, signing in
// with its seed through packages/job-streams' connection code, publish its
// own subjects and nothing else.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busUsers, connectToBus, ensureStreams, topology } from '@latchkey/job-streams';
import { createUnitNkeys, natsUnitsOf, nkeyAuthorization, nkeySecretManifest, nkeyValues, nscCommands, type UnitNkey } from '@latchkey/nats-keys';
import { startOwnNatsServer, type OwnNatsServer } from '@latchkey/test-kit';
import { units } from '@latchkey/units';
import { parse } from 'yaml';
import { findObject, renderChart, repoRoot, runHelm, templateArgs, type K8sObject } from './helm';
import { containerEnvironment, mainContainer, podTemplate } from './workloads';

const natsUnits = natsUnitsOf(units);
const keys = createUnitNkeys(natsUnits);

const nkeySettings = (unitKeys: readonly UnitNkey[]) => [
  'natsAuth.enabled=true',
  'natsAuth.mode=nkey',
  'natsAuth.existingSecret=latchkey-nats-nkeys',
  ...unitKeys.map(({ unit, publicKey }) => `natsAuth.nkeys.${unit}=${publicKey}`),
];
const credsSettings = ['natsAuth.enabled=true', 'natsAuth.mode=creds', 'natsAuth.existingSecret=latchkey-nats-creds'];

function authorizationOf(objects: readonly K8sObject[]): string {
  return (findObject(objects, 'ConfigMap', 'latchkey-nats-authorization').data as Record<string, string>)['authorization.conf']!;
}

const withoutComments = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .trim();

/** What each Deployment of a NATS unit gets for NATS: its variables and the Secret volume of its credentials file. */
function natsSideOf(objects: readonly K8sObject[], unit: string) {
  const deployment = findObject(objects, 'Deployment', `latchkey-${unit}`);
  const container = mainContainer(deployment);
  const environment = containerEnvironment(objects, container);
  const volume = podTemplate(deployment).spec.volumes?.find((candidate) => candidate.name === 'nats-credentials');
  const mount = container.volumeMounts?.find((candidate) => candidate.name === 'nats-credentials');
  return {
    user: environment.values.NATS_USER,
    password: environment.names.has('NATS_PASSWORD'),
    seedFile: environment.values.NATS_NKEY_SEED_FILE,
    credsFile: environment.values.NATS_CREDS_FILE,
    volume: volume?.secret,
    mountPath: mount?.mountPath,
  };
}

describe('natsAuth.mode nkey', () => {
  test('each NATS unit mounts its own seed alone and signs in with it; the block lists each unit’s public key with its permissions', () => {
    const objects = renderChart({ set: nkeySettings(keys) });
    for (const unit of natsUnits) {
      expect({ unit, ...natsSideOf(objects, unit) }).toEqual({
        unit,
        user: unit,
        password: false,
        seedFile: `/var/run/latchkey/nats/${unit}.nk`,
        credsFile: undefined,
        volume: { secretName: 'latchkey-nats-nkeys', defaultMode: 0o440, items: [{ key: `${unit}.nk`, path: `${unit}.nk` }] },
        mountPath: '/var/run/latchkey/nats',
      });
    }
    expect(natsSideOf(objects, 'gateway')).toMatchObject({ user: undefined, seedFile: undefined, volume: undefined });
    expect(withoutComments(authorizationOf(objects))).toBe(nkeyAuthorization('latchkey', keys));
    expect(withoutComments(authorizationOf(renderChart({ set: [...nkeySettings(keys), 'config.NATS_SUBJECT_PREFIX=acme'] })))).toBe(nkeyAuthorization('acme', keys));
    // No password anywhere: neither the chart's users Secret nor a secret in the block.
    expect(objects.some((object) => object.metadata.name === 'latchkey-nats-users')).toBe(false);
    expect(authorizationOf(objects)).not.toMatch(/password|SU[A-Z2-7]{56}/);
  });

  test('the values and the Secret `pnpm nats:keys nkey` writes render as they are', () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'latchkey-nkeys-'));
    try {
      const valuesFile = path.join(directory, 'values.yaml');
      writeFileSync(valuesFile, nkeyValues({ secretName: 'latchkey-nats-nkeys', keys }));
      const objects = renderChart({ values: [valuesFile] });
      expect(withoutComments(authorizationOf(objects))).toBe(nkeyAuthorization('latchkey', keys));
      const secret = parse(nkeySecretManifest({ name: 'latchkey-nats-nkeys', namespace: 'latchkey', keys })) as K8sObject & { stringData: Record<string, string> };
      for (const unit of natsUnits) {
        const { volume } = natsSideOf(objects, unit);
        expect(secret.stringData[volume!.items![0]!.key]).toBe(keys.find((key) => key.unit === unit)!.seed);
      }
      expect(Object.keys(secret.stringData).sort()).toEqual(natsUnits.map((unit) => `${unit}.nk`).sort());
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('refuses to render without the Secret, without a unit’s public key, with a malformed one, or beside config.NATS_NKEY_SEED_FILE', () => {
    const refusal = (set: readonly string[]) => {
      const result = runHelm(templateArgs({ set }));
      return { status: result.status === 0 ? 0 : 1, stderr: result.stderr };
    };
    expect(refusal(nkeySettings(keys).filter((setting) => !setting.startsWith('natsAuth.existingSecret')))).toEqual({
      status: 1,
      stderr: expect.stringContaining('natsAuth.mode nkey needs natsAuth.existingSecret'),
    });
    expect(refusal(nkeySettings(keys.filter((key) => key.unit !== 'posts')))).toEqual({ status: 1, stderr: expect.stringContaining('natsAuth.nkeys.posts') });
    expect(refusal([...nkeySettings(keys), `natsAuth.nkeys.posts=${keys[0]!.seed}`])).toEqual({ status: 1, stderr: expect.stringContaining('nkeys') });
    expect(refusal([...nkeySettings(keys), 'config.NATS_NKEY_SEED_FILE=/seed'])).toEqual({
      status: 1,
      stderr: expect.stringContaining('config.NATS_NKEY_SEED_FILE and natsAuth.enabled are alternatives'),
    });
  });
});

describe('natsAuth.mode creds', () => {
  test('each NATS unit mounts its own <unit>.creds; no authorization block and no password Secret, the account’s JWTs hold the permissions', () => {
    const objects = renderChart({ set: credsSettings });
    for (const unit of natsUnits) {
      expect({ unit, ...natsSideOf(objects, unit) }).toEqual({
        unit,
        user: unit,
        password: false,
        seedFile: undefined,
        credsFile: `/var/run/latchkey/nats/${unit}.creds`,
        volume: { secretName: 'latchkey-nats-creds', defaultMode: 0o440, items: [{ key: `${unit}.creds`, path: `${unit}.creds` }] },
        mountPath: '/var/run/latchkey/nats',
      });
    }
    expect(objects.some((object) => ['latchkey-nats-authorization', 'latchkey-nats-users'].includes(object.metadata.name))).toBe(false);
    const result = runHelm(templateArgs({ set: credsSettings.filter((setting) => !setting.startsWith('natsAuth.existingSecret')) }));
    expect({ status: result.status === 0 ? 0 : 1, stderr: result.stderr }).toEqual({ status: 1, stderr: expect.stringContaining('natsAuth.mode creds needs natsAuth.existingSecret') });
  });

  test('docs/operations.md gives the nsc commands of every unit, with the permissions of the other modes', () => {
    const docs = readFileSync(path.join(repoRoot, 'docs', 'operations.md'), 'utf8');
    expect(docs).toContain(nscCommands({ account: 'LATCHKEY', prefix: 'latchkey', units: natsUnits }).join('\n'));
  });
});

test('mode password stays the default, with each unit’s password', () => {
  const objects = renderChart({ set: ['natsAuth.enabled=true'] });
  for (const unit of natsUnits) {
    expect({ unit, ...natsSideOf(objects, unit) }).toMatchObject({ unit, user: unit, password: true, seedFile: undefined, credsFile: undefined, volume: undefined });
  }
});

describe('a NATS server with the chart’s NKey block', () => {
  const prefix = 'latchkey';
  const names = topology(prefix);
  const body = new TextEncoder().encode('{}');
  let server: OwnNatsServer;
  let seeds: string;

  beforeAll(async () => {
    server = await startOwnNatsServer({ config: authorizationOf(renderChart({ set: nkeySettings(keys) })) });
    seeds = mkdtempSync(path.join(os.tmpdir(), 'latchkey-seeds-'));
    for (const { unit, seed } of keys) writeFileSync(path.join(seeds, `${unit}.nk`), `${seed}\n`, { mode: 0o600 });
  }, 30_000);

  afterAll(async () => {
    await server?.destroy();
    if (seeds) rmSync(seeds, { recursive: true, force: true });
  });

  const connectAs = (unit: string, seedFile = path.join(seeds, `${unit}.nk`)) =>
    connectToBus({ NATS_URL: server.url, NATS_USER: unit, NATS_NKEY_SEED_FILE: seedFile }, { name: `test-${unit}` });

  test('lets a unit signed in with its seed publish its own jobs, and refuses another unit’s subjects', async () => {
    expect([...busUsers].sort()).toEqual(natsUnits);
    const worker = await connectAs('jobs');
    try {
      await ensureStreams(await worker.jetstreamManager(), prefix);
    } finally {
      await worker.close();
    }
    const posts = await connectAs('posts');
    try {
      const jetstream = posts.jetstream();
      await expect(jetstream.publish(names.subject('jobs.search.index'), body)).resolves.toMatchObject({ stream: names.jobsStream });
      // identity's order to delete an account's data, forged by posts: refused by the server.
      await expect(jetstream.publish(names.subject('jobs.user.deleted'), body, { timeout: 2_000 })).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
      await expect((await posts.jetstreamManager({ checkAPI: false })).streams.delete(names.jobsStream)).rejects.toThrow();
    } finally {
      await posts.close();
    }
  });

  test('refuses a seed whose public key the block does not list', async () => {
    const [stranger] = createUnitNkeys(['identity']);
    const file = path.join(seeds, 'stranger.nk');
    writeFileSync(file, stranger!.seed, { mode: 0o600 });
    await expect(connectAs('identity', file)).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });
});
