import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadTotpConfig } from './config';

void runProcess({
  service: 'totp',
  loadConfig: loadTotpConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./totp-service')).startTotpService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
