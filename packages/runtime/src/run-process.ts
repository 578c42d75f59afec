import { ConfigError } from '@latchkey/config';
import { createLogger, startTracing, type Logger } from '@latchkey/telemetry';

/** What a long-running command hands back so that it can be stopped. */
export interface Running {
  /** Stop accepting work, finish what is in flight, close connections. */
  stop(): Promise<void>;
  /** Fields for the `ready` log line (ports, URLs). */
  readonly readyFields?: Record<string, unknown>;
}

interface ProcessConfig {
  readonly LOG_LEVEL: string;
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
}

export interface ProcessSpec<Config extends ProcessConfig> {
  readonly service: string;
  readonly loadConfig: () => Config;
  /**
   * Commands by name (`serve`, `migrate`). They are loaded lazily so that the
   * modules they import are instrumented by the tracer started before them.
   */
  readonly commands: Record<string, () => Promise<(config: Config, logger: Logger) => Promise<Running | void>>>;
  readonly defaultCommand: string;
  /**
   * Checks a command makes before it starts, by command name: the rules that
   * hold for serving but not for the rest (mutual TLS in production for
   * `serve`; a migration talks only to PostgreSQL). A ConfigError they throw
   * stops the process like a bad variable.
   */
  readonly guards?: Readonly<Record<string, (config: Config) => void>>;
}

/**
 * The shared life cycle of every process: validated configuration, logger,
 * tracing, the command, one `ready` line, and a clean stop on SIGTERM/SIGINT.
 */
export async function runProcess<Config extends ProcessConfig>(spec: ProcessSpec<Config>): Promise<void> {
  const name = process.argv[2] ?? spec.defaultCommand;
  const command = spec.commands[name];
  if (!command) {
    process.stderr.write(`usage: ${spec.service} [${Object.keys(spec.commands).join('|')}]\n`);
    process.exit(2);
  }
  let config: Config;
  try {
    config = spec.loadConfig();
    spec.guards?.[name]?.(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${spec.service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ service: spec.service, level: config.LOG_LEVEL });
  const tracing = await startTracing({ service: spec.service, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const fail = (error: unknown): never => {
    logger.fatal({ err: error }, `${name} failed`);
    process.exit(1);
  };
  process.on('unhandledRejection', fail);

  const running = await (await command())(config, logger).catch(fail);
  if (!running) {
    await tracing.shutdown();
    process.exit(0);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    running
      .stop()
      .then(() => tracing.shutdown())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      }, fail);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Only now: whoever waits for this line (an orchestrator, the stack, a test) may signal at once.
  logger.info(running.readyFields ?? {}, 'ready');
}
