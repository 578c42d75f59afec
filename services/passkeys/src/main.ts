import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadPasskeysConfig } from './config';

void runProcess({
  service: 'passkeys',
  loadConfig: loadPasskeysConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./passkeys-service')).startPasskeysService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
