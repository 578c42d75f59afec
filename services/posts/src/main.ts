import { assertMutualTlsInProduction } from '@latchkey/config';
import { runProcess } from '@latchkey/runtime';
import { loadPostsConfig } from './config';

void runProcess({
  service: 'posts',
  loadConfig: loadPostsConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => (await import('./posts-service')).startPostsService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
