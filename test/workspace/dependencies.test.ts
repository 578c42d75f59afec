// Every workspace package declares exactly what it uses: a dependency no
// file imports is dead weight in its image (pnpm deploy installs it), and
// an import that is not declared works here only because pnpm hoisted it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The workspace's packages, as pnpm-workspace.yaml lists them (the root is tooling, run as commands). */
function workspaceFolders(): string[] {
  const inside = (group: string) =>
    readdirSync(path.join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(root, group, entry.name, 'package.json')))
      .map((entry) => `${group}/${entry.name}`);
  return ['gateway', 'test', ...inside('packages'), ...inside('services'), ...inside('tools')];
}

function* codeFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.data'].includes(entry.name)) continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* codeFiles(full);
    else if (/\.(ts|tsx|mts|mjs|cjs|js)$/.test(entry.name)) yield full;
  }
}

const specifierPattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\(\s*|^import\s+)['"]([^'"]+)['"]/gm;
const builtins = new Set(builtinModules);
/** A package name, which also skips strings that only look like imports (this file's pattern). */
const packageName = /^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/;

/** The packages a folder's code names in import, export, require and require.resolve. */
function packagesUsed(folder: string): Set<string> {
  const used = new Set<string>();
  for (const file of codeFiles(folder)) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(specifierPattern)) {
      if (!specifier || specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!)) continue;
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
      if (packageName.test(name)) used.add(name);
    }
  }
  return used;
}

/** `@types/pg` is used when `pg` is; `@types/foo__bar` when `@foo/bar` is. */
function typesFor(name: string): string | undefined {
  if (!name.startsWith('@types/')) return undefined;
  const typed = name.slice('@types/'.length);
  return typed.includes('__') ? `@${typed.replace('__', '/')}` : typed;
}

describe.each(workspaceFolders())('%s', (folder) => {
  const manifest = JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8')) as Manifest;
  const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.optionalDependencies });
  const used = packagesUsed(path.join(root, folder));

  test('uses every dependency it declares', () => {
    expect(declared.filter((name) => !used.has(typesFor(name) ?? name))).toEqual([]);
  });

  test('declares every package it imports', () => {
    expect([...used].filter((name) => name !== manifest.name && !declared.includes(name)).sort()).toEqual([]);
  });
});
