// docs/operations.md, "Install on plain Helm", "Install on Argo CD with
// External Secrets" and "Install on OpenShift": each section's values, as
// written there, render over values-production.yaml, pass `helm lint
// --strict`, and give what the section promises.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { chartDir, findObject, isHook, type K8sObject, productionValues, removeValuesFiles, renderChart, repoRoot, runHelm, writeValuesFile } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { podTemplate, selects } from './workloads';

afterAll(removeValuesFiles);

const operations = readFileSync(path.join(repoRoot, 'docs/operations.md'), 'utf8');

/** The first ```yaml block of the section under `heading`, as a values file. */
function sectionValues(heading: string): string {
  const start = operations.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/operations.md has no section "${heading}"`);
  const end = operations.indexOf('\n### ', start + 1);
  const block = /```yaml\n([\s\S]*?)```/.exec(operations.slice(start, end))?.[1];
  if (!block) throw new Error(`"${heading}" has no yaml block`);
  return writeValuesFile(parse(block));
}

function render(heading: string): { file: string; objects: K8sObject[] } {
  const file = sectionValues(heading);
  return { file, objects: renderChart({ values: [productionValues, file] }) };
}

function expectLintClean(file: string): void {
  const result = runHelm(['lint', '--strict', chartDir, '-f', productionValues, '-f', file]);
  expect({ status: result.status, warnings: result.stdout.match(/\[(WARNING|ERROR)\].*/g) ?? [] }).toEqual({ status: 0, warnings: [] });
}

const chartObjects = (objects: readonly K8sObject[]) => objects.filter((object) => object.kind !== 'ExternalSecret');
function expectValid(objects: readonly K8sObject[]): void {
  for (const object of chartObjects(objects)) validateWithModel(object);
  expect(chartObjects(objects).flatMap(unknownFields)).toEqual([]);
}

test('plain Helm: migrations as hooks before the release, the Secrets outside it, PgBouncer’s port open', () => {
  const { file, objects } = render('Install on plain Helm');
  expectLintClean(file);
  expectValid(objects);
  const jobs = objects.filter((object) => object.kind === 'Job');
  expect(jobs.length).toBeGreaterThan(0);
  for (const job of jobs) expect(job.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '0' });
  expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
  const egress = (findObject(objects, 'NetworkPolicy', 'latchkey-identity').spec as { egress: { ports: { port: number }[] }[] }).egress;
  expect(egress.flatMap((rule) => rule.ports.map((port) => port.port))).toEqual(expect.arrayContaining([5432, 6432]));
});

test('Argo CD with External Secrets: ExternalSecrets, then what the Jobs read, then the Jobs, then the release, in sync waves; no hook to run first', () => {
  const { file, objects } = render('Install on Argo CD with External Secrets');
  expectLintClean(file);
  expectValid(objects);
  const wave = (object: K8sObject) => Number(object.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? '0');
  const secrets = objects.filter((object) => object.kind === 'ExternalSecret');
  expect(secrets.map((secret) => (secret.spec as { target: { name: string } }).target.name).sort()).toEqual(['latchkey-env', 'latchkey-nats-users']);
  expect((secrets[0]!.spec as { dataFrom: { extract: { key: string } }[] }).dataFrom[0]!.extract.key).toBe('prod/latchkey');
  const jobs = objects.filter((object) => object.kind === 'Job');
  expect(jobs.length).toBeGreaterThan(0);
  for (const job of jobs) {
    expect(isHook(job)).toBe(false);
    for (const secret of secrets) expect(wave(secret)).toBeLessThan(wave(job));
  }
  const inputs = objects.filter((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-migrate'));
  for (const input of inputs) expect(wave(input)).toBeLessThan(wave(jobs[0]!));
  for (const object of objects.filter((candidate) => candidate.kind === 'Deployment')) expect(wave(object)).toBeGreaterThan(wave(jobs[0]!));
  expect(objects.filter((object) => isHook(object) && object.metadata.annotations?.['helm.sh/hook'] !== 'test')).toEqual([]);
});

test('OpenShift: the platform picks the pods’ user, a Route instead of the Ingress, DNS on 5353, the router admitted', () => {
  const { file, objects } = render('Install on OpenShift');
  expectLintClean(file);
  expectValid(objects.filter((object) => object.kind !== 'Route'));
  for (const workload of objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job')) {
    const pod = podTemplate(workload).spec;
    expect(pod.securityContext?.runAsUser).toBeUndefined();
    expect((pod.securityContext as { fsGroup?: number }).fsGroup).toBeUndefined();
    for (const container of pod.containers) expect(container.securityContext?.runAsUser).toBeUndefined();
  }
  expect(objects.filter((object) => object.kind === 'Ingress')).toEqual([]);
  expect(findObject(objects, 'Route', 'latchkey-gateway').spec).toMatchObject({ host: 'accounts.apps.example.com', port: { targetPort: 'http' } });
  const gateway = findObject(objects, 'NetworkPolicy', 'latchkey-gateway').spec as {
    ingress: { ports: { port: string }[]; from?: { namespaceSelector?: { matchLabels: Record<string, string> } }[] }[];
    egress: { ports: { port: number; protocol: string }[]; to?: { namespaceSelector?: { matchLabels: Record<string, string> } }[] }[];
  };
  const http = gateway.ingress.find((rule) => rule.ports.some((port) => port.port === 'http'))!;
  expect(http.from?.some((peer) => selects(peer.namespaceSelector?.matchLabels ?? { none: 'none' }, { 'policy-group.network.openshift.io/ingress': '' }))).toBe(true);
  expect(gateway.egress[0]).toEqual({
    to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } } }],
    ports: [
      { port: 5353, protocol: 'UDP' },
      { port: 5353, protocol: 'TCP' },
    ],
  });
});
