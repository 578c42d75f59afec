// .github/workflows/release.yml cannot run here (no GitHub runner, no
// Docker engine, no registry, neither syft nor cosign): these tests read it
// as GitHub Actions would and hold it to what it publishes. Each unit of the
// catalogue is built from its Dockerfile target, tagged with the chart's
// version, which the chart's default image names; each image gets an SBOM
// and is signed by digest, and so is the chart.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseDocument } from 'yaml';
import { units as catalogue } from '@latchkey/units';
import { chartDir, findObject, renderChart, repoRoot } from './helm';
import { mainContainer } from './workloads';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}

interface Job {
  needs?: string | string[];
  'runs-on': string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { unit: string[] } };
  env?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: Step[];
}

interface Workflow {
  name: string;
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const file = path.join(repoRoot, '.github/workflows/release.yml');
const source = readFileSync(file, 'utf8');
const workflow = parse(source) as Workflow;
const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };

/** The `${{ ... }}` expressions of a text. */
const expressions = (text: string): string[] => [...text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)].map((match) => match[1]!);

test('parses as one YAML document, with the structure GitHub Actions requires', () => {
  const document = parseDocument(source);
  expect(document.errors).toEqual([]);
  expect(workflow.name).toBe('release');
  expect(workflow.on).toEqual({ push: { tags: ['latchkey-*'] } });
  expect(Object.keys(workflow.jobs).sort()).toEqual(['chart', 'images', 'version']);
  for (const [name, job] of Object.entries(workflow.jobs)) {
    expect({ name, runsOn: typeof job['runs-on'] }).toEqual({ name, runsOn: 'string' });
    expect(job.steps.length).toBeGreaterThan(0);
    for (const step of job.steps) {
      // A step either uses an action at a version or runs a script; never both, never neither.
      expect({ name, step: step.name ?? step.uses, kinds: [step.uses, step.run].filter(Boolean).length }).toEqual({ name, step: step.name ?? step.uses, kinds: 1 });
      if (step.uses) expect(step.uses).toMatch(/^[\w.-]+\/[\w./-]+@v\d+$/);
    }
    for (const need of [job.needs ?? []].flat()) expect(Object.keys(workflow.jobs)).toContain(need);
  }
  // Every expression names what exists: the jobs it needs, its matrix, steps with an id, env, secrets, github.
  for (const [name, job] of Object.entries(workflow.jobs)) {
    const ids = new Set(job.steps.map((step) => step.id).filter(Boolean));
    for (const expression of expressions(JSON.stringify(job))) {
      const [scope, first] = expression.split('.');
      if (scope === 'needs') expect({ name, expression, needed: [job.needs ?? []].flat().includes(first!) }).toEqual({ name, expression, needed: true });
      else if (scope === 'steps') expect({ name, expression, id: ids.has(first) }).toEqual({ name, expression, id: true });
      else if (scope === 'matrix') expect(job.strategy?.matrix).toHaveProperty(first!);
      else expect(['env', 'secrets', 'github']).toContain(scope);
    }
  }
});

test('keeps the token to reading, but where a job publishes and signs (packages, the OIDC identity cosign signs with)', () => {
  expect(workflow.permissions).toEqual({ contents: 'read' });
  expect(workflow.jobs.version!.permissions).toBeUndefined();
  for (const name of ['images', 'chart']) expect(workflow.jobs[name]!.permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
});

test('builds one image per unit of the catalogue, from the Dockerfile target of its name, reproducibly', () => {
  const images = workflow.jobs.images!;
  expect(images.strategy!.matrix.unit).toEqual(catalogue.map((unit) => unit.name));
  const build = images.steps.find((step) => step.uses?.startsWith('docker/build-push-action@'))!;
  expect(build.with).toMatchObject({ context: '.', file: 'Dockerfile', target: '${{ matrix.unit }}', provenance: 'mode=max' });
  expect(build.with!.outputs).toBe('type=image,push=true,rewrite-timestamp=true');
  expect(build.env?.SOURCE_DATE_EPOCH).toBe('${{ needs.version.outputs.epoch }}');
  expect(build.with!['build-args']).toContain('SOURCE_DATE_EPOCH=${{ needs.version.outputs.epoch }}');
  expect(images.env!.IMAGE).toBe(`${workflow.env.IMAGE_PREFIX}/\${{ matrix.unit }}`);
  expect(build.with!.tags).toBe('${{ env.IMAGE }}:${{ env.VERSION }}');
  expect(images.env!.VERSION).toBe('${{ needs.version.outputs.version }}');
});

test('the version job refuses a tag that is not latchkey-<chart version>, or a chart whose appVersion differs', () => {
  const check = workflow.jobs.version!.steps.find((step) => step.id === 'chart')!.run!;
  expect(check).toContain('test "$GITHUB_REF_NAME" = "latchkey-$version"');
  expect(check).toContain('test "$app_version" = "$version"');
  expect(chart.appVersion).toBe(chart.version);
});

test('the chart’s default image is what the workflow pushes: its registry, repository and the chart’s version', () => {
  const objects = renderChart();
  for (const unit of catalogue) {
    const image = mainContainer(findObject(objects, 'Deployment', `latchkey-${unit.name}`)).image;
    expect(image).toBe(`${workflow.env.IMAGE_PREFIX}/${unit.name}:${chart.version}`);
  }
});

test('each image gets an SPDX SBOM from syft and a cosign signature and attestation, by digest', () => {
  const images = workflow.jobs.images!.steps;
  const order = (predicate: (step: Step) => boolean) => images.findIndex(predicate);
  const build = order((step) => step.id === 'build');
  const sbom = order((step) => step.run?.includes('syft scan') === true);
  const sign = order((step) => step.run?.includes('cosign sign') === true);
  expect(order((step) => step.uses?.startsWith('anchore/sbom-action/download-syft@') === true)).toBeLessThan(sbom);
  expect(order((step) => step.uses?.startsWith('sigstore/cosign-installer@') === true)).toBeLessThan(sign);
  expect(build).toBeLessThan(sbom);
  expect(sbom).toBeLessThan(sign);
  expect(images[sbom]!.run).toContain('registry:$IMAGE@${{ steps.build.outputs.digest }}');
  expect(images[sbom]!.run).toMatch(/spdx-json=/);
  expect(images[sign]!.run).toContain('cosign sign --yes "$IMAGE@${{ steps.build.outputs.digest }}"');
  expect(images[sign]!.run).toMatch(/cosign attest --yes --type spdxjson --predicate/);
});

test('the chart is linted, pushed as an OCI artifact and signed by digest, after the images', () => {
  const job = workflow.jobs.chart!;
  expect([job.needs].flat()).toEqual(['version', 'images']);
  const script = job.steps.map((step) => step.run ?? '').join('\n');
  expect(script).toContain('helm lint --strict charts/latchkey');
  expect(script).toContain('helm push "dist/latchkey-$VERSION.tgz" "$CHART_REPOSITORY"');
  expect(script).toMatch(/cosign sign --yes "\$\{CHART_REPOSITORY#oci:\/\/\}\/latchkey@\$CHART_DIGEST"/);
  expect(workflow.env.CHART_REPOSITORY).toMatch(/^oci:\/\//);
});
