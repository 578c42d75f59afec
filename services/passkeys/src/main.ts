import { runProcess } from '@latchkey/runtime';
import { loadPasskeysConfig } from './config';

void runProcess({
  service: 'passkeys',
  loadConfig: loadPasskeysConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./passkeys-service')).startPasskeysService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
