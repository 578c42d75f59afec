import type { oauthV1, postsV1, totpV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import { jobSubjects, userDeletedJobSchema, type UserDeletedJob } from '@latchkey/jobs-contract';
import type { Redis } from 'ioredis';
import { endSessionsBefore } from '@latchkey/session-keys';
import type { JobDefinition } from './job-consumer';

export interface AccountCleanupDeps {
  /** The gateway's sessions, which the account's must leave even if the gateway could not end them. */
  readonly redis: Redis;
  readonly redisKeyPrefix: string;
  readonly posts: ServiceClient<typeof postsV1.PostsServiceService>;
  readonly totp: ServiceClient<typeof totpV1.TotpServiceService>;
  readonly oauth: ServiceClient<typeof oauthV1.OAuthServiceService>;
}

/**
 * Identity's `user.deleted`: each unit that keeps data of the account removes
 * it through its own API (no unit reads another's tables). Posts queues a
 * `delete_content` job per post, so the stored content goes too. Every call
 * is idempotent, so a retry after a partial failure repeats what was done.
 */
export function accountCleanupJob(deps: AccountCleanupDeps): JobDefinition<UserDeletedJob> {
  return {
    name: 'account_cleanup',
    subject: jobSubjects.userDeleted,
    schema: userDeletedJobSchema,
    async handle(job, context) {
      await endSessionsBefore(deps.redis, deps.redisKeyPrefix, job.user_id, Number.POSITIVE_INFINITY);
      const { deletedPosts } = await deps.posts.deleteUserPosts({ userId: job.user_id }, context);
      await deps.totp.deleteUserData({ userId: job.user_id }, context);
      await deps.oauth.deleteUserData({ userId: job.user_id }, context);
      context.logger.info({ user_id: job.user_id, deleted_posts: deletedPosts }, 'account data removed');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
  };
}
