import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadOAuthConfig } from './config';

void runProcess({
  service: 'oauth',
  loadConfig: loadOAuthConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./oauth-service')).startOAuthService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
