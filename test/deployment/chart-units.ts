// The units as the chart declares them before a release tunes them: each
// one of catalogue.yaml (generated from packages/units) with its block of
// values.yaml merged over it, as the chart's "latchkey.units" merges them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { chartDir } from './helm';

export interface ChartUnit {
  kind: string;
  image: { repository: string };
  args: string[];
  ports: Record<string, { port: number; env: string }>;
  calls?: string[];
  grpcHealthService?: string;
  config?: string[];
  secrets?: string[];
  optionalSecrets?: string[];
  migrations?: { enabled?: boolean; args?: string[] };
  natsPublishes?: string[];
}

type Tree = Record<string, unknown>;
const isTree = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

function merged(base: Tree, override: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = isTree(value) && isTree(out[key]) ? merged(out[key], value) : value;
  return out;
}

const readYaml = (file: string): Tree => parse(readFileSync(path.join(chartDir, file), 'utf8')) as Tree;

export function chartUnits(): Record<string, ChartUnit> {
  const catalogue = (readYaml('catalogue.yaml').units ?? {}) as Record<string, Tree>;
  const values = (readYaml('values.yaml').units ?? {}) as Record<string, Tree>;
  const names = [...new Set([...Object.keys(catalogue), ...Object.keys(values)])];
  return Object.fromEntries(names.map((name) => [name, merged(catalogue[name] ?? {}, values[name] ?? {}) as unknown as ChartUnit]));
}
