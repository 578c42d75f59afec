// Runs the Helm binary that tools/helm/extract.mjs takes out of an npm
// package, so that the chart is linted and rendered offline, and parses what
// it renders.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

export const repoRoot = path.resolve(__dirname, '../..');
export const chartDir = path.join(repoRoot, 'charts', 'latchkey');
export const productionValues = path.join(chartDir, 'values-production.yaml');
export const devValues = path.join(repoRoot, 'k8s', 'values-dev.yaml');
/** Release name used for every render; the chart's full name is then "latchkey". */
export const releaseName = 'latchkey';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A rendered Kubernetes object, before it is checked against its model. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

let helmPath: string | undefined;

/** Path of the extracted helm binary (extracts it on first use). */
export function helmBinary(): string {
  if (helmPath === undefined) {
    const output = execFileSync(process.execPath, [path.join(repoRoot, 'tools', 'helm', 'extract.mjs')], {
      encoding: 'utf8',
    });
    const first = output.split('\n')[0]?.trim();
    if (!first?.endsWith(`${path.sep}helm`)) throw new Error(`tools/helm/extract.mjs printed no helm path:\n${output}`);
    helmPath = first;
  }
  return helmPath;
}

export function runHelm(args: readonly string[]): HelmResult {
  const result = spawnSync(helmBinary(), args, { cwd: repoRoot, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export interface RenderOptions {
  /** Values files, in order (-f). */
  values?: readonly string[];
  /** --set assignments. */
  set?: readonly string[];
  /** --set-json assignments, for lists and maps. */
  setJson?: readonly string[];
  release?: string;
}

export function templateArgs(options: RenderOptions = {}): string[] {
  return [
    'template',
    options.release ?? releaseName,
    chartDir,
    '--namespace',
    'latchkey',
    ...(options.values ?? []).flatMap((file) => ['-f', file]),
    ...(options.set ?? []).flatMap((assignment) => ['--set', assignment]),
    ...(options.setJson ?? []).flatMap((assignment) => ['--set-json', assignment]),
  ];
}

/** `helm template`; throws with Helm's message when rendering fails. */
export function renderChart(options: RenderOptions = {}): K8sObject[] {
  const result = runHelm(templateArgs(options));
  if (result.status !== 0) throw new Error(`helm template failed (${result.status}):\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** Every non-empty YAML document of a multi-document stream. */
export function parseManifests(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors.map(String).join('; ')}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
    const object = value as K8sObject;
    if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || !object.metadata?.name) {
      throw new Error(`object without apiVersion, kind or name: ${JSON.stringify(value).slice(0, 200)}`);
    }
    objects.push(object);
  }
  return objects;
}

const valuesDirs: string[] = [];

/** Writes a values file into a fresh directory under the OS temp dir. */
export function writeValuesFile(values: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latchkey-values-'));
  valuesDirs.push(dir);
  const file = path.join(dir, 'values.yaml');
  writeFileSync(file, stringify(values));
  return file;
}

/** Removes the files writeValuesFile() made in this test file. */
export function removeValuesFiles(): void {
  for (const dir of valuesDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function findObject(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) {
    const names = objects.filter((object) => object.kind === kind).map((object) => object.metadata.name);
    throw new Error(`no ${kind} named ${name} (have: ${names.join(', ') || 'none'})`);
  }
  return found;
}

export function isHook(object: K8sObject): boolean {
  return object.metadata.annotations?.['helm.sh/hook'] !== undefined;
}
