import { assertMutualTlsInProduction } from '@latchkey/config';
import { sessionUrlOf } from '@latchkey/db';
import { runProcess } from '@latchkey/runtime';
import { loadJobsConfig } from './config';

void runProcess({
  service: 'jobs',
  loadConfig: loadJobsConfig,
  defaultCommand: 'serve',
  // docs/operations.md, "Mutual TLS": no unit serves in production without its certificate.
  guards: { serve: assertMutualTlsInProduction },
  commands: {
    serve: async () => {
      const { startWorker } = await import('./worker');
      return async (config, logger) => {
        const worker = await startWorker(config, logger);
        return { readyFields: { metrics_port: worker.metricsPort }, stop: () => worker.stop() };
      };
    },
    migrate: async () => {
      const { migrateJobsSchema } = await import('./migrate');
      return async (config, logger) => {
        const applied = await migrateJobsSchema(sessionUrlOf(config));
        logger.info({ applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
      };
    },
  },
});
