// One configuration for every test in the repository: unit tests beside the
// code, integration tests under services/*/test and gateway/test, end-to-end
// tests under test/. swc transforms TypeScript; `pnpm build` type-checks.
const { readFileSync, readdirSync } = require('node:fs');
const path = require('node:path');

const swcrc = JSON.parse(readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
const packages = readdirSync(path.join(__dirname, 'packages'));

/**
 * Dependencies published only as ES modules. Node 20.19 loads them with
 * require(), but jest's CommonJS runtime does not, so swc turns them into
 * CommonJS for tests (pnpm paths look like node_modules/.pnpm/x/node_modules/x).
 */
const esmOnly = ['otplib', '@otplib', '@noble', '@scure', 'openid-client', 'oauth4webapi', 'jose'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/\\.data/'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    '^.+\\.(m|c)?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' }, swcrc: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    [`^@latchkey/(${packages.join('|')})$`]: '<rootDir>/packages/$1/src/index.ts',
  },
  globalSetup: '<rootDir>/packages/test-kit/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/test-kit/src/global-teardown.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
};
