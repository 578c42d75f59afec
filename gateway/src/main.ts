import { runProcess } from '@latchkey/runtime';
import { loadGatewayConfig } from './config';

void runProcess({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./gateway-server')).startGateway,
  },
});
