import { Redis } from 'ioredis';

interface RedisLogger {
  warn(fields: object, message: string): void;
  info(message: string): void;
}

/**
 * A service's Redis connection. Commands issued while Redis is away wait for
 * a bounded number of reconnect attempts and then fail, so a request answers
 * instead of hanging; an outage is logged once, not once per attempt.
 */
export function createRedisClient(
  url: string,
  options: {
    connectionName: string;
    logger: RedisLogger;
    /**
     * Fail commands at once while Redis is away, and after a second when it
     * stops answering: for callers that would rather answer without Redis,
     * or with a 503, than wait for it.
     */
    failFast?: boolean;
  },
): Redis {
  const redis = new Redis(url, {
    connectionName: options.connectionName,
    enableOfflineQueue: !options.failFast,
    ...(options.failFast ? { commandTimeout: 1_000 } : {}),
    connectTimeout: 5_000,
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    options.logger.warn({ err: error }, 'redis unavailable; retrying');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger.info('redis available again');
  });
  return redis;
}

/**
 * Resolves once the client is ready, has failed to connect, or `timeoutMs`
 * has passed, whichever comes first, with whether it is ready. A process
 * that serves from Redis waits for it before it listens, so that its first
 * requests do not fail for a connection still being made; one that finds
 * Redis away starts anyway and answers 503 until Redis is back.
 */
export async function settledConnection(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (isReady(redis)) return true;
  await new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      redis.off('ready', settle).off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, timeoutMs);
    redis.once('ready', settle).once('error', settle);
  });
  return isReady(redis);
}

function isReady(redis: Redis): boolean {
  return redis.status === 'ready';
}
