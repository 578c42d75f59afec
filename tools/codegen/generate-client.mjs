// Generates packages/client from the gateway's OpenAPI document: the
// document itself (openapi.json) and its TypeScript types (src/schema.ts,
// openapi-typescript). The document is built from the compiled gateway
// (gateway/dist/openapi-document.js), so tools/build/build.mjs runs first
// (emitting without type checks: code that uses a new route type-checks
// only once the client has it). With
// --check it fails when the committed files differ, so a route or schema
// change cannot land without its client.
import { createRequire } from 'node:module';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { writeOrCheck } from './generated-files.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { openApiDocument } = require(path.join(root, 'gateway/dist/openapi-document.js'));
const check = process.argv.includes('--check');
const banner = '// Generated from the gateway\'s OpenAPI document by `pnpm gen` (openapi-typescript). Do not edit.\n';

const document = await openApiDocument();
const files = {
  'packages/client/openapi.json': `${JSON.stringify(document, null, 2)}\n`,
  'packages/client/src/schema.ts': banner + astToString(await openapiTS(document, { alphabetize: true })),
};

writeOrCheck(root, files, { check, what: 'The HTTP client' });
