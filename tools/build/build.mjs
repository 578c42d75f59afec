// Emits dist/ for every workspace unit with swc. Type checking is `tsc` over
// the whole repository (see tsconfig.json); keeping the two apart makes a
// build a few seconds instead of a project-references compile per package.
import { readFile, readdir, mkdir, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { transformFile } from '@swc/core';

const root = path.resolve(import.meta.dirname, '../..');
const units = ['packages', 'services', 'tools'];
const swcrc = JSON.parse(await readFile(path.join(root, '.swcrc'), 'utf8'));

async function* sourceFiles(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}

async function unitDirs() {
  const dirs = [path.join(root, 'gateway')];
  for (const group of units) {
    for (const entry of await readdir(path.join(root, group), { withFileTypes: true })) {
      if (entry.isDirectory()) dirs.push(path.join(root, group, entry.name));
    }
  }
  return dirs;
}

async function buildUnit(dir) {
  const src = path.join(dir, 'src');
  const dist = path.join(dir, 'dist');
  try {
    await readdir(src);
  } catch {
    return 0;
  }
  await rm(dist, { recursive: true, force: true });
  let count = 0;
  for await (const file of sourceFiles(src)) {
    const out = path.join(dist, path.relative(src, file)).replace(/\.ts$/, '.js');
    const { code, map } = await transformFile(file, {
      ...swcrc,
      swcrc: false,
      filename: file,
      sourceFileName: path.relative(path.dirname(out), file),
    });
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, `${code}\n//# sourceMappingURL=${path.basename(out)}.map\n`);
    await writeFile(`${out}.map`, map);
    count += 1;
  }
  return count;
}

const counts = await Promise.all((await unitDirs()).map(buildUnit));
console.log(`built ${counts.reduce((a, b) => a + b, 0)} files`);
