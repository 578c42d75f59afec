import path from 'node:path';
import { Linter } from 'eslint';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const plugin = require('./unit-boundaries.cjs') as NonNullable<Linter.Config['plugins']>[string];

const root = path.resolve(__dirname, '../..');
const linter = new Linter({ cwd: root });
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    languageOptions: { sourceType: 'module', ecmaVersion: 2022 },
    plugins: { latchkey: plugin },
    rules: { 'latchkey/unit-boundaries': 'error' },
  },
];

/** The rule's messages for `source` as if it were the file at `file` (relative to the root). */
function problems(file: string, source: string): string[] {
  return linter.verify(source, config, { filename: path.join(root, file) }).map((message) => message.message);
}

test('a unit may import its own files and shared packages', () => {
  expect(problems('services/oauth/src/a.ts', "import { b } from './b';\nimport { c } from '../src/c';\nimport { AppError } from '@latchkey/errors';")).toEqual([]);
  expect(problems('gateway/src/posts/a.ts', "import { s } from '../sessions/session-store';")).toEqual([]);
});

test("a unit may not import another unit's files, by path or by package name, statically or dynamically", () => {
  expect(problems('services/oauth/src/a.ts', "import { c } from '../../identity/src/config';")).toEqual([
    'services/oauth imports services/identity: units talk over gRPC or JetStream; move shared code into packages/.',
  ]);
  expect(problems('services/jobs/src/a.ts', "export * from '@latchkey/posts';")).toHaveLength(1);
  expect(problems('gateway/src/a.ts', "const m = import('../../services/totp/src/index');")).toHaveLength(1);
  expect(problems('services/posts/src/a.ts', "import { buildApp } from '@latchkey/gateway/dist/app';")).toHaveLength(1);
});

test('a shared package may not import a unit', () => {
  expect(problems('packages/outbox/src/a.ts', "import { x } from '@latchkey/identity';")).toEqual([
    'packages/outbox imports the unit services/identity: a shared package must not depend on a unit.',
  ]);
  expect(problems('packages/outbox/src/a.ts', "import { db } from '@latchkey/db';")).toEqual([]);
});

test('tools and end-to-end tests are outside the rule: they start units', () => {
  expect(problems('test/e2e/a.ts', "import { buildApp } from '@latchkey/gateway';")).toEqual([]);
  expect(problems('tools/bench/src/a.ts', "import { x } from '../../../services/posts/src/config';")).toEqual([]);
});
