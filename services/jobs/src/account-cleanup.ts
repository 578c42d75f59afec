import type { RedisClient } from '@latchkey/db';
import type { identityV1, oauthV1, passkeysV1, postsV1, totpV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import { jobSubjects, userDeletedJobSchema, type UserDeletedJob } from '@latchkey/jobs-contract';
import { endSessionsBefore } from '@latchkey/session-keys';
import { findAccount } from './account-lookup';
import type { JobDefinition } from './job-consumer';

export interface AccountCleanupDeps {
  readonly identity: ServiceClient<typeof identityV1.IdentityServiceService>;
  /** The gateway's sessions, which the account's must leave even if the gateway could not end them. */
  readonly redis: RedisClient;
  readonly redisKeyPrefix: string;
  readonly posts: ServiceClient<typeof postsV1.PostsServiceService>;
  readonly totp: ServiceClient<typeof totpV1.TotpServiceService>;
  readonly oauth: ServiceClient<typeof oauthV1.OAuthServiceService>;
  readonly passkeys: ServiceClient<typeof passkeysV1.PasskeysServiceService>;
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
      // The bus is not trusted on its own: only an account identity no longer has is cleaned up.
      if (await findAccount(deps.identity, job.user_id, context)) {
        context.logger.warn({ user_id: job.user_id }, 'user.deleted for an account that exists; nothing deleted');
        return 'refused';
      }
      await endSessionsBefore(deps.redis, deps.redisKeyPrefix, job.user_id, Number.POSITIVE_INFINITY);
      const { deletedPosts } = await deps.posts.deleteUserPosts({ userId: job.user_id }, context);
      await deps.totp.deleteUserData({ userId: job.user_id }, context);
      await deps.oauth.deleteUserData({ userId: job.user_id }, context);
      await deps.passkeys.deleteUserData({ userId: job.user_id }, context);
      context.logger.info({ user_id: job.user_id, deleted_posts: deletedPosts }, 'account data removed');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
    retries: 'cleanup_window',
  };
}
