import type { RedisClient } from '@latchkey/db';
import { jobSubjects, sessionsRevokedJobSchema, type SessionsRevokedJob } from '@latchkey/jobs-contract';
import { endSessionsBefore } from '@latchkey/session-keys';
import type { JobDefinition } from './job-consumer';

/**
 * Identity's `sessions.revoked`, queued with a credential change (a
 * password reset or change, a disable): ends the account's sessions of
 * earlier credential epochs. The gateway already ended them when it
 * answered; this makes it so when it could not (Redis away, the process
 * gone between the commit and its cleanup), and leaves the session the
 * change started, which carries the new epoch. It retries until done, like
 * the account cleanup: an outage of Redis delays it, never parks it (the
 * gateway refuses such sessions meanwhile by their epoch).
 */
export function sessionRevocationJob(deps: { readonly redis: RedisClient; readonly redisKeyPrefix: string }): JobDefinition<SessionsRevokedJob> {
  return {
    name: 'session_revocation',
    subject: jobSubjects.sessionsRevoked,
    schema: sessionsRevokedJobSchema,
    async handle(job, context) {
      const ended = await endSessionsBefore(deps.redis, deps.redisKeyPrefix, job.user_id, job.session_epoch);
      if (ended > 0) context.logger.info({ user_id: job.user_id, ended_sessions: ended }, 'sessions of an earlier credential epoch ended');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
    retries: 'cleanup_window',
  };
}
