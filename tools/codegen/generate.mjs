// Lints proto/ and generates packages/contracts/src/gen with buf and ts-proto,
// and the package's index from the protos: a namespace per proto package and
// every service's definition by its full name. With --check it generates
// into a temporary folder and fails when the committed code differs, so
// stale generated code cannot land.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const target = path.join(root, 'packages/contracts/src/gen');
const indexFile = path.join(root, 'packages/contracts/src/index.ts');
const buf = path.join(root, 'node_modules/.bin/buf');
const check = process.argv.includes('--check');
const banner = '// Generated from proto/ by `pnpm gen` (buf + ts-proto). Do not edit.\n';

/** Every proto under proto/, as `<package>/<version>/<file>.proto`, sorted. */
function protoFiles() {
  return listFiles(path.join(root, 'proto')).filter((file) => file.endsWith('.proto')).sort();
}

/**
 * packages/contracts/src/index.ts: each proto package as a namespace
 * (`identity/v1` → `identityV1`), and `serviceDefinitions`, the
 * definition ts-proto generated for each service (`<Service>Service`) by
 * the service's full name, which is how the units catalogue names what a
 * unit serves and calls.
 */
function contractsIndex() {
  const protos = protoFiles().map((file) => {
    const [name, version] = file.split(path.sep);
    const text = readFileSync(path.join(root, 'proto', file), 'utf8');
    const protoPackage = /^package ([\w.]+);/m.exec(text)?.[1];
    if (!protoPackage) throw new Error(`proto/${file} declares no package`);
    return {
      namespace: `${name}${version.toUpperCase()}`,
      module: `./gen/${file.split(path.sep).join('/').replace(/\.proto$/, '')}`,
      services: [...text.matchAll(/^service (\w+) \{/gm)].map(([, service]) => ({ name: `${protoPackage}.${service}`, definition: `${service}Service` })),
    };
  });
  const services = protos.flatMap(({ namespace, services }) => services.map((service) => `  '${service.name}': ${namespace}.${service.definition},`));
  return [
    '// Generated from proto/ by `pnpm gen` (tools/codegen/generate.mjs). Do not edit.',
    ...protos.map(({ namespace, module }) => `import * as ${namespace} from '${module}';`),
    '',
    '/** Generated gRPC contracts, one namespace per proto package. */',
    `export { ${protos.map(({ namespace }) => namespace).join(', ')} };`,
    '',
    '/** Every gRPC service of proto/, by its full name: how the units catalogue (packages/units) names what a unit serves and calls. */',
    'export const serviceDefinitions = {',
    ...services,
    '} as const;',
    '',
    'export type ServiceName = keyof typeof serviceDefinitions;',
    '',
  ].join('\n');
}

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
    ].map((f) => path.join('gen', f));
    if (readFileSync(indexFile, 'utf8') !== contractsIndex()) stale.push('index.ts');
    if (stale.length > 0) {
      console.error(`Generated code is stale; run \`pnpm gen\` and commit:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('generated code is up to date');
  } else {
    rmSync(target, { recursive: true, force: true });
    cpSync(generated, target, { recursive: true });
    writeFileSync(indexFile, contractsIndex());
    console.log(`generated ${listFiles(target).length} files into ${path.relative(root, target)}, and ${path.relative(root, indexFile)}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
