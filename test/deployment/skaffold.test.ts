// skaffold.yaml cannot be run here (no Skaffold, no cluster), so these tests
// read it and do what Skaffold would: build one image per artifact from a
// Dockerfile target, fill the chart's image values from its templates, apply
// each profile's patches, and deploy k8s/ before the chart in `dev`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { devValues, findObject, isHook, type K8sObject, parseManifests, renderChart, repoRoot } from './helm';
import { unknownFields, validateWithModel } from './manifest-validation';
import { mainContainer } from './workloads';

interface Artifact {
  image: string;
  context?: string;
  docker?: { dockerfile?: string; target?: string };
}

interface HelmRelease {
  name: string;
  chartPath: string;
  valuesFiles?: string[];
  setValues?: Record<string, string>;
  setValueTemplates?: Record<string, string>;
}

interface Patch {
  op: string;
  path: string;
  value: unknown;
}

interface Profile {
  name: string;
  patches?: Patch[];
  manifests?: { rawYaml?: string[] };
  deploy?: { kubectl?: Record<string, unknown> };
  portForward?: { resourceType: string; resourceName: string; port: number; localPort?: number }[];
}

interface SkaffoldConfig {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  requires?: { path: string; activeProfiles?: { name: string; activatedBy?: string[] }[] }[];
  build?: { artifacts: Artifact[] };
  deploy?: { helm?: { releases: HelmRelease[] } };
  profiles?: Profile[];
}

const skaffold = parse(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8')) as SkaffoldConfig;
const devServicesPath = path.join(repoRoot, 'k8s', 'skaffold.yaml');
const devServices = parse(readFileSync(devServicesPath, 'utf8')) as SkaffoldConfig;
const artifacts = skaffold.build?.artifacts ?? [];
const release = skaffold.deploy?.helm?.releases[0];

/** Stage names of a Dockerfile (`FROM image AS name`). */
function dockerfileStages(file: string): Set<string> {
  const stages = new Set<string>();
  for (const match of readFileSync(file, 'utf8').matchAll(/^FROM\s+\S+\s+AS\s+(\S+)\s*$/gim)) {
    if (match[1]) stages.add(match[1]);
  }
  return stages;
}

/** Skaffold's template names for an artifact: '/' and '-' become '_'. */
function templateKey(image: string): string {
  return image.replace(/[/-]/g, '_');
}

/** What Skaffold would substitute for each artifact after a build and push. */
function builtImages(): Map<string, { repo: string; tag: string; digest: string }> {
  return new Map(
    artifacts.map((artifact, index) => [
      artifact.image,
      { repo: `registry.test/${artifact.image}`, tag: `test-${index}`, digest: `sha256:${String(index).repeat(64)}` },
    ]),
  );
}

function fillTemplate(template: string): string {
  const images = builtImages();
  return template.replace(/\{\{\s*\.IMAGE_(REPO|TAG|DIGEST)_(\w+)\s*\}\}/g, (whole, field: string, key: string) => {
    const artifact = artifacts.find((candidate) => templateKey(candidate.image) === key);
    if (!artifact) throw new Error(`${whole} names no artifact`);
    const built = images.get(artifact.image)!;
    return field === 'REPO' ? built.repo : field === 'TAG' ? built.tag : built.digest;
  });
}

/** The helm values files and --set assignments of the release after a profile's patches. */
function releaseFor(profileName: string): { values: string[]; set: string[] } {
  const patched = structuredClone<SkaffoldConfig>(skaffold);
  const profile = patched.profiles?.find((candidate) => candidate.name === profileName);
  if (!profile) throw new Error(`no profile ${profileName}`);
  for (const patch of profile.patches ?? []) {
    const match = /^\/deploy\/helm\/releases\/(\d+)\/valuesFiles$/.exec(patch.path);
    if (patch.op !== 'add' || !match) throw new Error(`patch this test does not apply: ${JSON.stringify(patch)}`);
    const target = patched.deploy?.helm?.releases[Number(match[1])];
    if (!target) throw new Error(`patch ${patch.path} names no release`);
    target.valuesFiles = patch.value as string[];
  }
  const patchedRelease = patched.deploy!.helm!.releases[0]!;
  return {
    values: (patchedRelease.valuesFiles ?? []).map((file) => path.join(repoRoot, file)),
    set: [
      ...Object.entries(patchedRelease.setValues ?? {}).map(([key, value]) => `${key}=${value}`),
      ...Object.entries(patchedRelease.setValueTemplates ?? {}).map(([key, value]) => `${key}=${fillTemplate(value)}`),
    ],
  };
}

test('both configs use a Skaffold v4 schema (v4beta11 or later)', () => {
  for (const config of [skaffold, devServices]) {
    expect(config.kind).toBe('Config');
    const version = /^skaffold\/v4beta(\d+)$/.exec(config.apiVersion);
    expect(Number(version?.[1])).toBeGreaterThanOrEqual(11);
  }
});

test('every artifact is built by docker from a Dockerfile target that exists, with the repository as context', () => {
  expect(artifacts.length).toBeGreaterThan(0);
  for (const artifact of artifacts) {
    expect(artifact.context ?? '.').toBe('.');
    const dockerfile = path.join(repoRoot, artifact.docker?.dockerfile ?? 'Dockerfile');
    expect(existsSync(dockerfile)).toBe(true);
    expect(dockerfileStages(dockerfile)).toContain(artifact.docker?.target);
  }
  expect(new Set(artifacts.map((artifact) => artifact.image)).size).toBe(artifacts.length);
});

test('the helm release deploys charts/latchkey and fills every image from a built artifact', () => {
  expect(release?.chartPath).toBe('charts/latchkey');
  expect(existsSync(path.join(repoRoot, release!.chartPath, 'Chart.yaml'))).toBe(true);
  const { values, set } = releaseFor('dev');
  const objects = renderChart({ values, set });
  const built = [...builtImages().values()].map(({ repo, tag, digest }) => `${repo}:${tag}@${digest}`);
  const used = new Set<string>();
  for (const workload of objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job')) {
    const image = mainContainer(workload).image;
    expect({ workload: workload.metadata.name, built: built.includes(image) }).toEqual({ workload: workload.metadata.name, built: true });
    used.add(image);
  }
  // Every Deployment has its image from skaffold, and every artifact is used.
  expect(used).toEqual(new Set(built));
});

test.each(['dev', 'production'])('profile %s points helm at a values file that exists and renders', (profileName) => {
  const { values, set } = releaseFor(profileName);
  expect(values.length).toBeGreaterThan(0);
  for (const file of values) expect(existsSync(file)).toBe(true);
  expect(renderChart({ values, set }).some((object) => object.kind === 'Deployment')).toBe(true);
});

test('profile dev forwards the gateway Service port 8080 to localhost', () => {
  const profile = skaffold.profiles?.find((candidate) => candidate.name === 'dev');
  const forward = profile?.portForward?.[0];
  expect(forward).toMatchObject({ resourceType: 'service', port: 8080, localPort: 8080 });
  const service = findObject(renderChart({ values: [devValues] }), 'Service', forward!.resourceName);
  expect((service.spec as { ports: { port: number }[] }).ports.map((port) => port.port)).toContain(8080);
});

describe('development backing services (k8s/)', () => {
  const devProfile = devServices.profiles?.find((profile) => profile.name === 'dev');
  const manifestFiles = (devProfile?.manifests?.rawYaml ?? []).map((file) => path.join(path.dirname(devServicesPath), file));
  let objects: K8sObject[] = [];
  beforeAll(() => {
    objects = manifestFiles.flatMap((file) => parseManifests(readFileSync(file, 'utf8')));
  });

  test('the root config requires them, activated by its dev profile only, and deploys them with kubectl', () => {
    const requirement = skaffold.requires?.find((candidate) => path.join(repoRoot, candidate.path) === devServicesPath);
    expect(requirement?.activeProfiles).toEqual([{ name: 'dev', activatedBy: ['dev'] }]);
    expect(devProfile?.deploy?.kubectl).toBeDefined();
    // Outside the dev profile the config deploys nothing.
    expect((devServices as unknown as Record<string, unknown>).manifests).toBeUndefined();
    expect((devServices as unknown as Record<string, unknown>).deploy).toBeUndefined();
  });

  test('every manifest in k8s/ is listed, and every listed file exists', () => {
    const onDisk = readdirSync(path.join(repoRoot, 'k8s'))
      .filter((file) => file.endsWith('.yaml') && file !== 'skaffold.yaml' && !file.startsWith('values'))
      .map((file) => path.join(repoRoot, 'k8s', file))
      .sort();
    expect([...manifestFiles].sort()).toEqual(onDisk);
  });

  test('each object validates against kubernetes-models and has no unknown field', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      expect(() => validateWithModel(object)).not.toThrow();
      expect(unknownFields(object)).toEqual([]);
    }
  });

  test('PostgreSQL 16, Redis 7, NATS 2.10 with JetStream, an S3 store and an SMTP catcher run', () => {
    const images = objects.filter((object) => object.kind === 'Deployment').map((object) => mainContainer(object));
    expect(images.map((container) => container.image.split(':')[0]).sort()).toEqual(
      ['adobe/s3mock', 'axllent/mailpit', 'nats', 'postgres', 'redis'].sort(),
    );
    expect(images.find((container) => container.image.startsWith('postgres'))?.image).toBe('postgres:16');
    expect(images.find((container) => container.image.startsWith('redis'))?.image).toBe('redis:7');
    const nats = images.find((container) => container.image.startsWith('nats'));
    expect(nats?.image).toBe('nats:2.10');
    expect(nats?.args).toEqual(['-c', '/etc/nats/nats.conf']);
    const documents = parseAllDocuments(readFileSync(path.join(repoRoot, 'k8s', 'nats.yaml'), 'utf8')).map((document) => document.toJSON() as K8sObject);
    const natsConfig = (findObject(documents, 'ConfigMap', 'latchkey-nats-config').data as Record<string, string>)['nats.conf'];
    expect(natsConfig).toMatch(/^jetstream \{\n {2}store_dir: \/data\n\}$/m);
  });

  test.each([
    ['k8s/values-dev.yaml', [devValues]],
    ['the chart defaults', []],
  ])('%s point every backing-service URL at a Service and port of k8s/, with its credentials', (_name, files) => {
    const chartObjects = renderChart({ values: files });
    const chartSecret = findObject(chartObjects, 'Secret', 'latchkey-secrets');
    const urls = Object.entries(chartSecret.data as Record<string, string>)
      .filter(([key]) => key.endsWith('_URL'))
      .map(([key, value]) => [key, new URL(Buffer.from(value, 'base64').toString('utf8'))] as const);
    expect(urls.map(([key]) => key).sort()).toEqual(['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'SMTP_URL']);
    const credentials = findObject(objects, 'Secret', 'latchkey-dev-backing').stringData as Record<string, string>;
    for (const [key, url] of urls) {
      const service = findObject(objects, 'Service', url.hostname);
      const ports = (service.spec as { ports: { port: number }[] }).ports.map((port) => port.port);
      expect({ key, port: ports.includes(Number(url.port)) }).toEqual({ key, port: true });
    }
    const database = urls.find(([key]) => key === 'DATABASE_URL')![1];
    expect([database.username, database.password, database.pathname]).toEqual([
      credentials.POSTGRES_USER,
      credentials.POSTGRES_PASSWORD,
      `/${credentials.POSTGRES_DB}`,
    ]);
    expect(urls.find(([key]) => key === 'REDIS_URL')![1].password).toBe(credentials.REDIS_PASSWORD);
    // Hooks read a copy of the same Secret.
    const hookSecret = chartObjects.find((object) => object.kind === 'Secret' && isHook(object));
    expect(hookSecret).toBeDefined();
    // The object store: S3Mock's Service and port, the bucket it creates, path-style (its only addressing).
    const s3Container = mainContainer(findObject(objects, 'Deployment', 'latchkey-s3'));
    const initialBuckets = s3Container.env?.find((variable) => variable.name === 'COM_ADOBE_TESTING_S3MOCK_STORE_INITIAL_BUCKETS')?.value;
    for (const unit of ['posts', 'jobs']) {
      const data = findObject(chartObjects, 'ConfigMap', `latchkey-${unit}`).data as Record<string, string>;
      const endpoint = new URL(data.S3_ENDPOINT ?? '');
      const service = findObject(objects, 'Service', endpoint.hostname);
      expect((service.spec as { ports: { port: number }[] }).ports.map((port) => port.port)).toContain(Number(endpoint.port));
      expect(initialBuckets?.split(',')).toContain(data.S3_BUCKET);
      expect(data.S3_FORCE_PATH_STYLE).toBe('true');
    }
  });
});
