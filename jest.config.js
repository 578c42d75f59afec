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

/**
 * End-to-end suites that run a second time, in the `topology` project, on
 * the engines of a production topology (test/topology/topology-setup.ts):
 * the ones that exercise sessions, rate limits, second factors, mails and
 * posts without reaching into Redis, NATS or PostgreSQL themselves.
 */
const onProductionTopology = ['posts', 'account-lifecycle', 'session-revocation', 'totp', 'rate-limits'].map(
  (name) => `<rootDir>/test/e2e/${name}.test.ts`,
);

/** What both projects share. */
const common = {
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    '^.+\\.(m|c)?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' }, swcrc: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    [`^@latchkey/(${packages.join('|')})$`]: '<rootDir>/packages/$1/src/index.ts',
  },
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30_000,
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'default',
      testMatch: ['<rootDir>/**/*.test.ts'],
      // test/topology runs in its own project, with engines of its own.
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '/\\.data/', '<rootDir>/test/topology/'],
      globalSetup: '<rootDir>/packages/test-kit/src/global-setup.ts',
      globalTeardown: '<rootDir>/packages/test-kit/src/global-teardown.ts',
    },
    {
      // Heavy (a Redis Cluster, a NATS cluster, PostgreSQL with a replica
      // behind PgBouncer, failovers): run once, on the machine's Node only;
      // test/runtime/jest-on-image-node.mjs leaves it out (README.md, "Tests").
      ...common,
      displayName: 'topology',
      testMatch: ['<rootDir>/test/topology/**/*.test.ts', ...onProductionTopology],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      globalSetup: '<rootDir>/test/topology/topology-setup.ts',
      globalTeardown: '<rootDir>/test/topology/topology-teardown.ts',
      // Read by test/support/topology.ts: only this project's files use the shared engines.
      globals: { LATCHKEY_TOPOLOGY_PROJECT: true },
    },
  ],
};
