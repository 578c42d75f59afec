// Generates from the unit catalogue (packages/units) what cannot import it:
// the chart's catalogue, the Dockerfile's unit stages, the Skaffold
// artifacts and the development NATS users (tools/unit-files says which
// files and regions). It reads the compiled catalogue, so tools/build/build.mjs
// runs first. With --check it fails when a committed file differs, so a
// unit cannot be added to the catalogue and not to what deploys it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { units } = require(path.join(root, 'packages/units/dist/index.js'));
const { unitFiles } = require(path.join(root, 'tools/unit-files/dist/index.js'));
const check = process.argv.includes('--check');

const files = unitFiles(root, units);
if (check) {
  const stale = Object.entries(files).filter(([file, text]) => {
    try {
      return readFileSync(path.join(root, file), 'utf8') !== text;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(`Generated from the unit catalogue and stale; run \`pnpm gen\` and commit:\n  ${stale.map(([file]) => file).join('\n  ')}`);
    process.exit(1);
  }
  console.log('the files generated from the unit catalogue are up to date');
} else {
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(root, file), text);
  console.log(`generated ${Object.keys(files).join(', ')}`);
}
