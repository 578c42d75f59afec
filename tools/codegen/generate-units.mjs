// Generates from the unit catalogue (packages/units) what cannot import it:
// the chart's catalogue, the Dockerfile's unit stages, the Skaffold
// artifacts and the development NATS users (tools/unit-files says which
// files and regions). It reads the compiled catalogue, so tools/build/build.mjs
// runs first. With --check it fails when a committed file differs, so a
// unit cannot be added to the catalogue and not to what deploys it.
import { createRequire } from 'node:module';
import path from 'node:path';
import { writeOrCheck } from './generated-files.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { units } = require(path.join(root, 'packages/units/dist/index.js'));
const { unitFiles } = require(path.join(root, 'tools/unit-files/dist/index.js'));
const check = process.argv.includes('--check');

writeOrCheck(root, unitFiles(root, units), { check, what: 'What is generated from the unit catalogue' });
