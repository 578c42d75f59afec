import { runProcess } from '@latchkey/runtime';
import { loadPostsConfig } from './config';

void runProcess({
  service: 'posts',
  loadConfig: loadPostsConfig,
  defaultCommand: 'serve',
  commands: {
    serve: async () => (await import('./posts-service')).startPostsService,
    migrate: async () => (await import('./migrate')).migrate,
  },
});
