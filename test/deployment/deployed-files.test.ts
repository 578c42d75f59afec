// What an image holds: the Dockerfile's `<unit>-deploy` stages run `pnpm
// deploy --prod` for the unit, and the runtime image copies the result. The
// same command here, without Docker, shows that only compiled code,
// migrations and production dependencies go in: no sources, tests or source
// maps of the unit or of its workspace packages (their `files` lists).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { units } from '@latchkey/units';
import { repoRoot } from './helm';

function* walk(dir: string, base: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    // Third-party packages ship what their authors chose; ours are the question.
    if (name === 'node_modules' && !base.endsWith('node_modules/@latchkey')) {
      const ours = path.join(full, '@latchkey');
      if (statSync(full).isDirectory() && readdirSync(full).includes('@latchkey')) {
        for (const pkg of readdirSync(ours)) yield* walk(path.join(ours, pkg), path.join('node_modules/@latchkey', pkg));
      }
      continue;
    }
    const relative = path.join(base, name);
    if (statSync(full).isDirectory()) yield* walk(full, relative);
    else yield relative;
  }
}

const scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test.each(units.map((unit) => [unit.name, unit.packageName] as const))('%s deploys compiled code and migrations only', (name, packageName) => {
  const out = path.join(scratch, name);
  execFileSync('pnpm', ['--filter', packageName, 'deploy', '--prod', '--offline', out], { cwd: repoRoot, stdio: 'pipe' });
  const files = [...walk(out, '')];
  expect(files.some((file) => file.startsWith('dist/') && file.endsWith('.js'))).toBe(true);
  const unwanted = files.filter((file) => /(^|\/)(src|test)\//.test(file) || file.endsWith('.map') || file.endsWith('.ts'));
  expect({ name, unwanted }).toEqual({ name, unwanted: [] });
}, 60_000);
