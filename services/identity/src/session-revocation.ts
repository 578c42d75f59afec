import type pg from 'pg';
import type { RequestContext } from '@latchkey/grpc-kit';
import { jobSubjects, type SessionsRevokedJob } from '@latchkey/jobs-contract';
import { queueEvent } from '@latchkey/domain-events';
import { enqueueJob } from '@latchkey/outbox';
import { revokeUserTokens } from './oidc/oidc-artifacts';
import type { UserRecord } from './user-store';

/**
 * Queues, in the transaction of a credential change, the job that ends the
 * account's sessions of earlier epochs, and the `session.revoked` event (docs/architecture.md, "Sessions"):
 * the gateway ends them at once, and this makes it so even if it fails
 * right after the commit.
 */
export async function queueSessionsRevoked(
  db: pg.ClientBase,
  user: Pick<UserRecord, 'id' | 'session_epoch'>,
  reason: 'password_changed' | 'password_reset' | 'account_disabled' | 'admin',
  context: RequestContext,
): Promise<void> {
  const job: SessionsRevokedJob = { user_id: user.id, session_epoch: user.session_epoch };
  await enqueueJob(db, jobSubjects.sessionsRevoked, job, { requestId: context.requestId });
  // The applications' codes and tokens go with the credentials that got them; their consents stay (docs/oidc.md).
  if (reason === 'password_reset' || reason === 'account_disabled') await revokeUserTokens(db, user.id);
  // No session ids: every session started before the change ended (docs/events.md).
  await queueEvent(db, 'session.revoked', { userId: user.id, reason, sessionIds: [], keptSessionId: '' }, context);
}
