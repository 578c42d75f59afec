import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import latchkey from './tools/lint/unit-boundaries.cjs';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'packages/contracts/src/gen/**', '.data/**', '.tools/**', 'coverage/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      'no-console': 'error',
      // Fastify plugins and handlers are async by convention even when they await nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Units talk over gRPC and JetStream only (tools/lint/unit-boundaries.cjs).
    // Tests are left out: an integration test may start a peer unit in-process,
    // standing in for the cluster.
    files: ['gateway/src/**/*.ts', 'services/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { latchkey },
    rules: { 'latchkey/unit-boundaries': 'error' },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', '**/test/**/*.ts', 'packages/test-kit/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
