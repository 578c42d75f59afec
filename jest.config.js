// One configuration for every test in the repository: unit tests beside the
// code, integration tests under services/*/test and gateway/test, end-to-end
// tests under test/. swc transforms TypeScript; `pnpm build` type-checks.
const { readFileSync, readdirSync } = require('node:fs');
const path = require('node:path');

const swcrc = JSON.parse(readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
const packages = readdirSync(path.join(__dirname, 'packages'));

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/\\.data/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  moduleNameMapper: {
    [`^@latchkey/(${packages.join('|')})$`]: '<rootDir>/packages/$1/src/index.ts',
  },
  globalSetup: '<rootDir>/packages/test-kit/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/test-kit/src/global-teardown.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
};
