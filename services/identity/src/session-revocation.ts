import type pg from 'pg';
import { isUuid } from '@latchkey/account-fields';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { jobSubjects, type SessionsRevokedJob } from '@latchkey/jobs-contract';
import { queueEvent } from '@latchkey/domain-events';
import { withTransaction } from '@latchkey/db';
import { enqueueJob } from '@latchkey/outbox';
import { endSessionsBefore } from '@latchkey/session-keys';
import { recordEndedSessions } from './ended-sessions';
import type { IdentityDeps } from './identity-deps';
import { revokeUserTokens } from './oidc/oidc-artifacts';
import type { UserRecord } from './user-store';

/** Changes that end every session started before them, by raising the credential epoch. */
export type CredentialChange = 'password_changed' | 'password_reset' | 'password_dropped' | 'account_disabled' | 'admin' | 'membership_suspended';

/**
 * Queues, in the transaction of a credential change, the job that ends the
 * account's sessions of earlier epochs, and the `session.revoked` event (docs/architecture.md, "Sessions"):
 * the gateway ends them at once, and this makes it so even if it fails
 * right after the commit.
 */
export async function queueSessionsRevoked(
  db: pg.ClientBase,
  user: Pick<UserRecord, 'id' | 'session_epoch'>,
  reason: CredentialChange,
  context: RequestContext,
): Promise<void> {
  const job: SessionsRevokedJob = { user_id: user.id, session_epoch: user.session_epoch };
  await enqueueJob(db, jobSubjects.sessionsRevoked, job, context);
  // The applications' codes and tokens go with the credentials that got them; their consents stay (docs/oidc.md).
  if (reason === 'password_changed' || reason === 'password_reset' || reason === 'password_dropped' || reason === 'account_disabled' || reason === 'membership_suspended') {
    await revokeUserTokens(db, user.id);
  }
  await queueEvent(db, 'session.revoked', { userId: user.id, reason, sessionIds: [], keptSessionId: '' }, context);
}

/** Why the gateway ends sessions one by one (proto/events/v1/events.proto, SessionRevoked). */
const namedSessionReasons = new Set(['logout', 'session_revoked', 'totp_enabled', 'provider_linked', 'email_changed', 'session_limit', 'platform']);

/** The gateway's public session ids: 16 random bytes, base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
/** More than a user may hold (AUTH_SESSION_MAX_PER_USER is at most 10,000). */
const MAX_SESSION_IDS = 10_000;

/**
 * `session.revoked` for sessions the gateway ends one by one, which it keeps
 * in Redis and so cannot announce through an outbox of its own; and, in the
 * same transaction, the durable record that they ended, which the gateway
 * holds every use of a session to (docs/architecture.md, "Sessions").
 */
export async function recordSessionsEnded(
  deps: Pick<IdentityDeps, 'pool'>,
  input: { userId: string; reason: string; sessionIds: readonly string[]; keptSessionId: string; expiresAt?: Date | undefined },
  context: RequestContext,
): Promise<void> {
  const errors: FieldError[] = [];
  if (!isUuid(input.userId)) errors.push({ field: 'user_id', message: 'must be a UUID' });
  if (!namedSessionReasons.has(input.reason)) errors.push({ field: 'reason', message: `must be one of ${[...namedSessionReasons].join(', ')}` });
  if (input.sessionIds.length === 0 || input.sessionIds.length > MAX_SESSION_IDS || !input.sessionIds.every((id) => SESSION_ID.test(id))) {
    errors.push({ field: 'session_ids', message: `must be 1 to ${MAX_SESSION_IDS} session ids` });
  }
  if (input.keptSessionId !== '' && !SESSION_ID.test(input.keptSessionId)) errors.push({ field: 'kept_session_id', message: 'must be a session id' });
  if (errors.length > 0) throw AppError.validation(errors);
  const userId = input.userId.toLowerCase();
  await withTransaction(deps.pool, context, async (db) => {
    await recordEndedSessions(db, { userId, sessionIds: input.sessionIds, expiresAt: input.expiresAt });
    await queueEvent(
      db,
      'session.revoked',
      { userId, reason: input.reason, sessionIds: [...input.sessionIds], keptSessionId: input.keptSessionId },
      context,
    );
  });
}

/**
 * Ends now the account's sessions started before credential epoch `epoch`
 * (all of them for Infinity), the outbox job queued with the change being
 * what makes it certain: a Redis outage here leaves it to the worker.
 */
export async function endSessionsNow(deps: Pick<IdentityDeps, 'sessions'>, userId: string, epoch: number, context: RequestContext): Promise<void> {
  await endSessionsBefore(deps.sessions.redis, deps.sessions.keyPrefix, userId, epoch).catch((error: unknown) =>
    context.logger.warn({ err: error, user_id: userId }, 'could not end sessions now; the revocation job will'),
  );
}
