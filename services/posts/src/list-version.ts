import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { postListVersionKey } from '@latchkey/contracts';
import type { Logger } from '@latchkey/telemetry';

/**
 * Publishes that the post list changed, so that readers keeping a copy of a
 * page (the gateway) fetch it again. A write that could not publish is
 * still answered: readers bound how long they keep a page, so the change
 * shows after that bound instead of at once.
 */
export class PostListVersion {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    redisKeyPrefix: string,
    private readonly logger: Logger,
  ) {
    this.key = postListVersionKey(redisKeyPrefix);
  }

  /** Call after the change has committed and before answering it. */
  async changed(): Promise<void> {
    await this.redis.set(this.key, randomBytes(12).toString('base64url')).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not publish the post list version; cached pages expire on their own');
    });
  }
}
