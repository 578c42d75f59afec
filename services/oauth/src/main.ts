import { runProcess } from '@latchkey/runtime';
import { loadOAuthConfig } from './config';

void runProcess({
  service: 'oauth',
  loadConfig: loadOAuthConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./oauth-service')).startOAuthService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
