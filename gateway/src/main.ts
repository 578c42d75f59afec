import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadGatewayConfig } from './config';

void runProcess({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./gateway-server')).startGateway,
  },
});
