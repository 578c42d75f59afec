// Checks rendered objects against the Kubernetes API types of
// kubernetes-models 4.5 (and cert-manager's and the Prometheus Operator's,
// from the same family): its
// validate() (types, required fields, enums) plus
// a check for unknown fields, which validate() does not flag. The field lists
// come from the package's own type declarations (one interface per .d.ts
// file), so the check follows the same API version as the models.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as batch from 'kubernetes-models/batch/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as core from 'kubernetes-models/v1';
import * as certManager from '@kubernetes-models/cert-manager/cert-manager.io/v1';
import * as prometheusOperator from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { type K8sObject } from './helm';

interface ValidatingModel {
  validate(): void;
}
type ModelClass = new (data: K8sObject) => ValidatingModel;

/** The API groups the chart and k8s/ use, by apiVersion. */
const groups: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'batch/v1': batch,
  'autoscaling/v2': autoscaling,
  'policy/v1': policy,
  'networking.k8s.io/v1': networking,
  'cert-manager.io/v1': certManager,
  'monitoring.coreos.com/v1': prometheusOperator,
  'keda.sh/v1alpha1': keda,
};

export function modelFor(apiVersion: string, kind: string): ModelClass {
  const group = groups[apiVersion];
  if (!group) throw new Error(`no kubernetes-models group for apiVersion ${apiVersion}`);
  const model = group[kind];
  if (typeof model !== 'function') throw new Error(`kubernetes-models has no ${kind} in ${apiVersion}`);
  return model as ModelClass;
}

/** Throws the model's validation error, if any. */
export function validateWithModel(object: K8sObject): void {
  const Model = modelFor(object.apiVersion, object.kind);
  new Model(object).validate();
}

const modelsRoot = path.dirname(require.resolve('kubernetes-models/package.json'));
const requireFromModels = createRequire(path.join(modelsRoot, 'package.json'));

/** How a property's type is checked further. */
type FieldType =
  | { shape: 'scalar' }
  | { shape: 'object'; file: string }
  | { shape: 'array'; file: string }
  | { shape: 'map'; file: string };

interface ObjectType {
  fields: Map<string, FieldType>;
}

const typeCache = new Map<string, ObjectType | null>();

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** Splits "a: X; b: { [k: string]: Y; }; c: Z" at the top-level semicolons. */
function splitMembers(body: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of body) {
    if (char === '{' || char === '<' || char === '(') depth += 1;
    if (char === '}' || char === '>' || char === ')') depth -= 1;
    if (char === ';' && depth === 0) {
      members.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim()) members.push(current.trim());
  return members;
}

function resolveImport(fromFile: string, specifier: string): string {
  if (specifier.startsWith('.')) return path.resolve(path.dirname(fromFile), `${specifier}.d.ts`);
  // A package path such as @kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta:
  // locate the package, then the declaration file inside it.
  const segments = specifier.split('/');
  const packageLength = specifier.startsWith('@') ? 2 : 1;
  const packageName = segments.slice(0, packageLength).join('/');
  const packageDir = path.dirname(requireFromModels.resolve(`${packageName}/package.json`));
  return path.join(packageDir, ...segments.slice(packageLength)) + '.d.ts';
}

/** Parses the interface of one kubernetes-models .d.ts file; null for a type alias. */
function loadType(file: string): ObjectType | null {
  const cached = typeCache.get(file);
  if (cached !== undefined) return cached;
  const source = stripComments(readFileSync(file, 'utf8'));
  const imports = new Map<string, string>();
  for (const match of source.matchAll(/import \{ ([^}]+) \} from "([^"]+)";/g)) {
    const [, names, specifier] = match;
    if (!names || !specifier || specifier.startsWith('@kubernetes-models/base')) continue;
    for (const name of names.split(',')) {
      const [imported, alias] = name.trim().split(/\s+as\s+/);
      if (imported) imports.set(alias ?? imported, resolveImport(file, specifier));
    }
  }
  const start = /export interface \w+(?: extends [\w, ]+)? \{/.exec(source);
  if (!start) {
    typeCache.set(file, null);
    return null;
  }
  let depth = 1;
  let index = start.index + start[0].length;
  const bodyStart = index;
  while (depth > 0 && index < source.length) {
    if (source[index] === '{') depth += 1;
    if (source[index] === '}') depth -= 1;
    index += 1;
  }
  const body = source.slice(bodyStart, index - 1);
  const fields = new Map<string, FieldType>();
  for (const member of splitMembers(body)) {
    const property = /^"([^"]+)"\??:\s*([\s\S]+)$/.exec(member);
    if (!property?.[1] || !property[2]) continue;
    const typeText = property[2].replace(/\s+/g, ' ').trim();
    fields.set(property[1], classify(typeText, imports));
  }
  const type = { fields };
  typeCache.set(file, type);
  return type;
}

function classify(typeText: string, imports: Map<string, string>): FieldType {
  const array = /^Array<(\w+)>$/.exec(typeText);
  if (array?.[1] && imports.has(array[1])) return { shape: 'array', file: imports.get(array[1])! };
  const map = /^\{ \[key: string\]: (\w+); \}$/.exec(typeText);
  if (map?.[1] && imports.has(map[1])) return { shape: 'map', file: imports.get(map[1])! };
  if (imports.has(typeText)) return { shape: 'object', file: imports.get(typeText)! };
  return { shape: 'scalar' };
}

const certManagerRoot = path.dirname(require.resolve('@kubernetes-models/cert-manager/package.json'));
const prometheusOperatorRoot = path.dirname(require.resolve('@kubernetes-models/prometheus-operator/package.json'));
const kedaRoot = path.dirname(require.resolve('@kubernetes-models/keda/package.json'));

function declarationFile(apiVersion: string, kind: string): string {
  const root = apiVersion.startsWith('cert-manager.io/')
    ? certManagerRoot
    : apiVersion.startsWith('monitoring.coreos.com/')
      ? prometheusOperatorRoot
      : apiVersion.startsWith('keda.sh/')
        ? kedaRoot
        : modelsRoot;
  return path.join(root, ...apiVersion.split('/'), `${kind}.d.ts`);
}

function collectUnknown(value: unknown, type: ObjectType, at: string, found: string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const field = type.fields.get(key);
    if (!field) {
      found.push(`${at}.${key}`);
      continue;
    }
    if (field.shape === 'scalar' || child === null || child === undefined) continue;
    const childType = loadType(field.file);
    if (!childType) continue;
    if (field.shape === 'object') collectUnknown(child, childType, `${at}.${key}`, found);
    if (field.shape === 'array' && Array.isArray(child)) {
      child.forEach((item, position) => collectUnknown(item, childType, `${at}.${key}[${position}]`, found));
    }
    if (field.shape === 'map' && typeof child === 'object') {
      for (const [entry, item] of Object.entries(child as Record<string, unknown>)) collectUnknown(item, childType, `${at}.${key}.${entry}`, found);
    }
  }
}

/** Paths of the fields of an object that its API type does not declare. */
export function unknownFields(object: K8sObject): string[] {
  const type = loadType(declarationFile(object.apiVersion, object.kind));
  if (!type) throw new Error(`no type declaration for ${object.apiVersion} ${object.kind}`);
  const found: string[] = [];
  collectUnknown(object, type, `${object.kind}/${object.metadata.name}`, found);
  return found;
}
