import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadIdentityConfig } from './config';

void runProcess({
  service: 'identity',
  loadConfig: loadIdentityConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./identity-service')).startIdentityService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
