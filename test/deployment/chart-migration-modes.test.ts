// docs/operations.md, "Migrations": one switch (migrations.mode) says how
// every unit's migrations run, and what they read, the operator's
// ExternalSecret included, is ordered before them: Helm hook weights in
// hook mode, Argo CD sync waves in job mode, nothing to order in
// initContainer mode. A first install cannot wait for a Secret that is made
// after the Jobs that read it.
import { units as catalogue } from '@latchkey/units';
import { findObject, isHook, type K8sObject, productionValues, removeValuesFiles, renderChart, runHelm, templateArgs, writeValuesFile } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { componentOf, mainContainer, podTemplate, type Container } from './workloads';

afterAll(removeValuesFiles);

const migrating = catalogue.filter((unit) => unit.migrates).map((unit) => unit.name);

/** The operator's ExternalSecret that writes values-production.yaml's existingSecret, as docs/operations.md gives it. */
const externalSecret = {
  apiVersion: 'external-secrets.io/v1',
  kind: 'ExternalSecret',
  metadata: { name: 'latchkey-env' },
  spec: {
    refreshInterval: '1h',
    secretStoreRef: { name: 'aws-secrets', kind: 'ClusterSecretStore' },
    target: { name: 'latchkey-env', creationPolicy: 'Orphan' },
    dataFrom: [{ extract: { key: 'prod/{{ .Release.Name }}' } }],
  },
};

function render(mode: string, extra: Record<string, unknown> = {}): K8sObject[] {
  return renderChart({ values: [productionValues, writeValuesFile({ migrations: { mode, syncWave: -5 }, extraObjects: [{ weight: -20, manifest: externalSecret }], ...extra })] });
}

const annotation = (object: K8sObject, key: string): string | undefined => object.metadata.annotations?.[key];
const wave = (object: K8sObject): number => Number(annotation(object, 'argocd.argoproj.io/sync-wave') ?? '0');
const hookWeight = (object: K8sObject): number => Number(annotation(object, 'helm.sh/hook-weight') ?? '0');
/** Hooks of an install or upgrade (`helm test`'s own are run by hand, after it). */
const installHooks = (objects: readonly K8sObject[]) => objects.filter((object) => isHook(object) && annotation(object, 'helm.sh/hook') !== 'test');
const chartObjects = (objects: readonly K8sObject[]) => objects.filter((object) => object.kind !== 'ExternalSecret');

/** What a migration Job's pod reads: its ServiceAccount, ConfigMaps and Secrets, by kind/name. */
function readBy(job: K8sObject): string[] {
  const pod = podTemplate(job).spec;
  const container = mainContainer(job);
  return [
    `ServiceAccount/${pod.serviceAccountName ?? 'default'}`,
    ...(container.envFrom ?? []).flatMap((source) => (source.configMapRef ? [`ConfigMap/${source.configMapRef.name}`] : [])),
    ...(container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [`Secret/${variable.valueFrom.secretKeyRef.name}`] : [])),
  ];
}

function producer(objects: readonly K8sObject[], read: string): K8sObject {
  const [kind, name] = read.split('/') as [string, string];
  // An ExternalSecret makes the Secret its target names.
  const found = objects.find(
    (object) => (object.kind === kind && object.metadata.name === name) || (kind === 'Secret' && object.kind === 'ExternalSecret' && (object.spec as { target: { name: string } }).target.name === name),
  );
  if (!found) throw new Error(`nothing in the release makes ${read}`);
  return found;
}

describe('migrations.mode hook (the default)', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render('hook');
  });

  test('every migration Job is a pre-install,pre-upgrade hook, and everything it reads, the ExternalSecret included, is an earlier hook', () => {
    const jobs = objects.filter((object) => object.kind === 'Job');
    expect(jobs.map(componentOf).sort()).toEqual(migrating.map((unit) => `${unit}-migrate`).sort());
    for (const job of jobs) {
      expect(annotation(job, 'helm.sh/hook')).toBe('pre-install,pre-upgrade');
      for (const read of new Set(readBy(job))) {
        const made = producer(objects, read);
        expect({ read, hook: annotation(made, 'helm.sh/hook') }).toEqual({ read, hook: 'pre-install,pre-upgrade' });
        expect({ read, before: hookWeight(made) < hookWeight(job) }).toEqual({ read, before: true });
      }
    }
    const secret = findObject(objects, 'ExternalSecret', 'latchkey-env');
    expect(hookWeight(secret)).toBe(-20);
    expect((secret.spec as { dataFrom: { extract: { key: string } }[] }).dataFrom[0]!.extract.key).toBe('prod/latchkey');
  });

  test('the release’s own objects are no hooks and carry no sync wave', () => {
    for (const object of objects.filter((candidate) => !isHook(candidate))) expect(annotation(object, 'argocd.argoproj.io/sync-wave')).toBeUndefined();
    expect(objects.filter((object) => object.kind === 'Deployment' && isHook(object))).toEqual([]);
  });

  test('an object the migrations need at or after their weight is refused', () => {
    const result = runHelm(templateArgs({ values: [productionValues, writeValuesFile({ extraObjects: [{ weight: 0, manifest: externalSecret }] })] }));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/extraObjects: ExternalSecret\/latchkey-env has weight 0; the migration hooks run at 0/);
  });
});

describe('migrations.mode job (Argo CD sync waves)', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render('job');
  });

  test('no object is a Helm hook (Argo CD would run it in PreSync, before the ExternalSecret it needs)', () => {
    expect(installHooks(objects).map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([]);
  });

  test('the ExternalSecret, then what the Jobs read, then the Jobs, then the rest of the release, each in a later wave', () => {
    const jobs = objects.filter((object) => object.kind === 'Job');
    expect(jobs.map(componentOf).sort()).toEqual(migrating.map((unit) => `${unit}-migrate`).sort());
    for (const job of jobs) {
      expect(wave(job)).toBe(-5);
      for (const read of new Set(readBy(job))) expect({ read, before: wave(producer(objects, read)) < wave(job) }).toEqual({ read, before: true });
    }
    expect(wave(findObject(objects, 'ExternalSecret', 'latchkey-env'))).toBe(-20);
    for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'Service')) expect(wave(object)).toBe(0);
    expect(chartObjects(objects).flatMap(unknownFields)).toEqual([]);
    for (const object of chartObjects(objects)) validateWithModel(object);
  });

  test('a Job is named for what it runs: the same values keep it, a new image makes a new one', () => {
    const names = (rendered: readonly K8sObject[]) => rendered.filter((object) => object.kind === 'Job').map((object) => object.metadata.name).sort();
    expect(names(objects)).toEqual(names(render('job')));
    for (const name of names(objects)) expect(name).toMatch(/^latchkey-[a-z]+-migrate-[0-9a-f]{8}$/);
    const upgraded = names(render('job', { image: { tag: '9.9.9' } }));
    expect(upgraded.filter((name) => names(objects).includes(name))).toEqual([]);
  });

  test('an object the migrations need in or after their wave is refused', () => {
    const result = runHelm(templateArgs({ values: [productionValues, writeValuesFile({ migrations: { mode: 'job', syncWave: -5 }, extraObjects: [{ weight: -5, manifest: externalSecret }] })] }));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/has weight -5; the migration Jobs run in sync wave -5/);
  });
});

describe('migrations.mode initContainer', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render('initContainer');
  });

  test('no Job and no hook: each migrating unit migrates in an init container of its pods, with the unit’s own environment and mounts', () => {
    expect(objects.filter((object) => object.kind === 'Job')).toEqual([]);
    expect(installHooks(objects)).toEqual([]);
    for (const unit of catalogue) {
      const deployment = findObject(objects, 'Deployment', `latchkey-${unit.name}`);
      const init = (podTemplate(deployment).spec as unknown as { initContainers?: Container[] }).initContainers ?? [];
      const migrate = init.find((container) => container.name === 'migrate');
      if (!unit.migrates) {
        expect(migrate).toBeUndefined();
        continue;
      }
      const main = mainContainer(deployment);
      expect(migrate).toMatchObject({ image: main.image, args: ['node', 'dist/main.js', 'migrate'], env: main.env, envFrom: main.envFrom, volumeMounts: main.volumeMounts, securityContext: main.securityContext });
    }
    expect(chartObjects(objects).flatMap(unknownFields)).toEqual([]);
    for (const object of chartObjects(objects)) validateWithModel(object);
  });

  test('the ExternalSecret still comes first under Argo CD (wave -20), and runs with the rest under Helm', () => {
    const secret = findObject(objects, 'ExternalSecret', 'latchkey-env');
    expect(wave(secret)).toBe(-20);
    expect(isHook(secret)).toBe(false);
  });

  test('a unit’s own initContainers run before its migration', () => {
    const proxy = { name: 'wait-for-proxy', image: 'busybox:1.36', command: ['true'] };
    const rendered = renderChart({ values: [writeValuesFile({ migrations: { mode: 'initContainer', syncWave: -5 }, units: { posts: { initContainers: [proxy] } } })] });
    const init = (podTemplate(findObject(rendered, 'Deployment', 'latchkey-posts')).spec as unknown as { initContainers: Container[] }).initContainers;
    expect(init.map((container) => container.name)).toEqual(['wait-for-proxy', 'migrate']);
  });
});

test('the mode is the release’s alone: neither a unit’s block nor the catalogue can set one, and an unknown mode is refused', () => {
  for (const values of [{ units: { identity: { migrations: { mode: 'job' } } } }, { unitDefaults: { migrations: { mode: 'job' } } }, { migrations: { mode: 'preSync', syncWave: -5 } }]) {
    const result = runHelm(templateArgs({ values: [writeValuesFile(values)] }));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/mode/);
  }
});
