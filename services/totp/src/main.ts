import { runProcess } from '@latchkey/runtime';
import { loadTotpConfig } from './config';

void runProcess({
  service: 'totp',
  loadConfig: loadTotpConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./totp-service')).startTotpService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
