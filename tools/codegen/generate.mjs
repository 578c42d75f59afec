// Lints proto/ and generates packages/contracts/src/gen with buf and ts-proto.
// With --check it generates into a temporary folder and fails when the
// committed code differs, so stale generated code cannot land.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const target = path.join(root, 'packages/contracts/src/gen');
const buf = path.join(root, 'node_modules/.bin/buf');
const check = process.argv.includes('--check');
const banner = '// Generated from proto/ by `pnpm gen` (buf + ts-proto). Do not edit.\n';

function run(args, cwd = root) {
  execFileSync(buf, args, { cwd, stdio: 'inherit' });
}

function listFiles(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

run(['lint']);
const scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-gen-'));
try {
  const template = readFileSync(path.join(root, 'buf.gen.yaml'), 'utf8')
    .replace('local: node_modules/.bin/protoc-gen-ts_proto', `local: ${path.join(root, 'node_modules/.bin/protoc-gen-ts_proto')}`)
    .replace('out: packages/contracts/src/gen', `out: ${path.join(scratch, 'gen')}`);
  writeFileSync(path.join(scratch, 'buf.gen.yaml'), template);
  run(['generate', '--template', path.join(scratch, 'buf.gen.yaml')]);
  const generated = path.join(scratch, 'gen');
  for (const file of listFiles(generated)) {
    const full = path.join(generated, file);
    writeFileSync(full, banner + readFileSync(full, 'utf8'));
  }
  if (check) {
    const fresh = listFiles(generated).sort();
    let committed = [];
    try {
      committed = listFiles(target).sort();
    } catch {
      committed = [];
    }
    const stale = [
      ...fresh.filter((f) => !committed.includes(f) || readFileSync(path.join(generated, f), 'utf8') !== readFileSync(path.join(target, f), 'utf8')),
      ...committed.filter((f) => !fresh.includes(f)),
    ];
    if (stale.length > 0) {
      console.error(`Generated code is stale; run \`pnpm gen\` and commit:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('generated code is up to date');
  } else {
    rmSync(target, { recursive: true, force: true });
    cpSync(generated, target, { recursive: true });
    console.log(`generated ${listFiles(target).length} files into ${path.relative(root, target)}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
