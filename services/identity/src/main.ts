import { runProcess } from '@latchkey/runtime';
import { loadIdentityConfig } from './config';

void runProcess({
  service: 'identity',
  loadConfig: loadIdentityConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./identity-service')).startIdentityService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
