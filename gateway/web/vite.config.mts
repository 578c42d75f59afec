import path from 'node:path';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The account web app, built to static files the gateway serves at `/`
 * (docs/web-app.md). No inline script or style ends up in the output, so the
 * gateway's Content-Security-Policy can forbid both.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  // The typed client from its source, as the Node code uses it through tsc.
  resolve: { alias: { '@latchkey/client': path.resolve(import.meta.dirname, '../../packages/client/src/index.ts') } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // Browsers the app supports all have WebAuthn's JSON helpers' prerequisites.
    target: 'es2022',
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
