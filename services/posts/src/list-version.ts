import type { RedisClient } from '@latchkey/db';
import { publishPostListVersion } from '@latchkey/post-list-version';
import type { Logger } from '@latchkey/telemetry';

/**
 * Publishes that the post list changed, so that readers keeping a copy of a
 * page (the gateway) fetch it again. A write that could not publish is
 * still answered: readers bound how long they keep a page, so the change
 * shows after that bound instead of at once.
 */
export class PostListVersion {
  constructor(
    private readonly redis: RedisClient,
    private readonly redisKeyPrefix: string,
    private readonly logger: Logger,
  ) {}

  /** Call after the change has committed and before answering it. */
  async changed(): Promise<void> {
    await publishPostListVersion(this.redis, this.redisKeyPrefix).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not publish the post list version; cached pages expire on their own');
    });
  }
}
