// Generates the Python client of the platform APIs (sessions.v1, admin.v1,
// orgs.v1, events.v1) into clients/python with protoc and grpc_python_plugin (Debian:
// protobuf-compiler, protobuf-compiler-grpc). With --check it generates into
// a temporary folder and fails when the committed code differs.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const target = path.join(root, 'clients/python');
const generatedFolders = ['sessions', 'admin', 'orgs', 'events'];
const protos = generatedFolders.map((name) => `${name}/v1/${name}.proto`);
const check = process.argv.includes('--check');

function listFiles(dir, base = dir) {
  // Python's bytecode caches are not generated code.
  return readdirSync(dir).filter((name) => name !== '__pycache__').flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

function which(command) {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim();
  } catch {
    console.error(`${command} is missing: apt-get install protobuf-compiler protobuf-compiler-grpc (bash .ci/run installs them)`);
    process.exit(1);
  }
}

const protoc = which('protoc');
const plugin = which('grpc_python_plugin');
const scratch = mkdtempSync(path.join(tmpdir(), 'latchkey-python-'));
try {
  execFileSync(
    protoc,
    ['-I', path.join(root, 'proto'), `--plugin=protoc-gen-grpc_python=${plugin}`, `--python_out=${scratch}`, `--pyi_out=${scratch}`, `--grpc_python_out=${scratch}`, ...protos],
    { stdio: 'inherit' },
  );
  const fresh = listFiles(scratch).sort();
  if (check) {
    const committed = generatedFolders.flatMap((folder) => {
      try {
        return listFiles(path.join(target, folder)).map((file) => path.join(folder, file));
      } catch {
        return [];
      }
    });
    const stale = [
      ...fresh.filter((f) => !committed.includes(f) || readFileSync(path.join(scratch, f), 'utf8') !== readFileSync(path.join(target, f), 'utf8')),
      ...committed.filter((f) => !fresh.includes(f)),
    ];
    if (stale.length > 0) {
      console.error(`The Python client is stale; run \`pnpm gen\` and commit:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('the Python client is up to date');
  } else {
    for (const folder of generatedFolders) rmSync(path.join(target, folder), { recursive: true, force: true });
    cpSync(scratch, target, { recursive: true });
    console.log(`generated ${fresh.length} files into ${path.relative(root, target)}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
