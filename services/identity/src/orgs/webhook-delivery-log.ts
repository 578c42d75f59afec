import type pg from 'pg';
import { webhooksV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { queueMail } from '../mail-queue';
import { recordOrgAudit } from './org-audit-log';
import { isId } from './org-fields';

/** What the delivery log needs beside the pool. */
export interface WebhookDeliveryLogDeps {
  readonly pool: pg.Pool;
  /** WEBHOOK_DISABLE_AFTER_HOURS in milliseconds: how long an endpoint may fail before it is disabled. */
  readonly disableAfterMs: number;
}

const ATTEMPT_STATUSES = new Set(['succeeded', 'failed', 'refused']);

interface DeliveryRow {
  endpoint_id: string;
  url: string;
  enabled: boolean;
  body: string;
  delivered_at: Date | null;
  attempts: number;
  sealed: Buffer[];
}

/**
 * What the worker's next attempt of a message sends: the endpoint's URL and
 * its secrets as they are now, still sealed; or why nothing is to be sent.
 */
export async function getDelivery(pool: pg.Pool, request: webhooksV1.GetDeliveryRequest): Promise<webhooksV1.GetDeliveryResponse> {
  if (!isId(request.messageId)) throw AppError.validation([{ field: 'message_id', message: 'must be a UUID' }]);
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT message.endpoint_id, endpoint.url, endpoint.enabled, message.body, message.delivered_at,
            (SELECT count(*)::int FROM identity.webhook_attempts attempt WHERE attempt.message_id = message.id) AS attempts,
            ARRAY(SELECT secret.sealed FROM identity.webhook_secrets secret
                   WHERE secret.endpoint_id = endpoint.id AND (secret.expires_at IS NULL OR secret.expires_at > now())
                   ORDER BY secret.created_at DESC) AS sealed
       FROM identity.webhook_messages message JOIN identity.webhook_endpoints endpoint ON endpoint.id = message.endpoint_id
      WHERE message.id = $1`,
    [request.messageId],
  );
  const row = rows[0];
  const none = { endpointId: '', url: '', body: '', sealedSecrets: [], attempts: 0 };
  if (!row) return { ...none, state: webhooksV1.DeliveryState.DELIVERY_STATE_GONE };
  if (!row.enabled) return { ...none, state: webhooksV1.DeliveryState.DELIVERY_STATE_ENDPOINT_DISABLED };
  if (row.delivered_at && !request.again) return { ...none, state: webhooksV1.DeliveryState.DELIVERY_STATE_DELIVERED };
  return {
    state: webhooksV1.DeliveryState.DELIVERY_STATE_DUE,
    endpointId: row.endpoint_id,
    url: row.url,
    body: row.body,
    sealedSecrets: row.sealed,
    attempts: row.attempts,
  };
}

function checkAttempt(request: webhooksV1.RecordAttemptRequest): void {
  const problems = [
    ...(isId(request.attemptId) ? [] : [{ field: 'attempt_id', message: 'must be a UUID' }]),
    ...(isId(request.messageId) ? [] : [{ field: 'message_id', message: 'must be a UUID' }]),
    ...(ATTEMPT_STATUSES.has(request.status) ? [] : [{ field: 'status', message: 'must be succeeded, failed or refused' }]),
    ...(request.responseStatus === undefined || (request.responseStatus >= 100 && request.responseStatus <= 599)
      ? []
      : [{ field: 'response_status', message: 'must be an HTTP status' }]),
    ...(request.durationMs >= 0 ? [] : [{ field: 'duration_ms', message: 'must not be negative' }]),
  ];
  if (problems.length > 0) throw AppError.validation(problems);
}

interface RecordedRow {
  endpoint_id: string;
  enabled: boolean;
  attempts: number;
  disable_due: boolean;
}

/**
 * Adds an attempt to the log and keeps the endpoint's failing state; an
 * endpoint failing for longer than allowed is disabled, audited and its
 * organisation's owners mailed, once, by whichever attempt gets there first.
 * The attempt, the message's delivery and the endpoint's failing state are
 * one statement, so one round trip: the worker calls this for every
 * attempt, and a transaction of a statement each held a pooled connection
 * for seven. The attempts are those already logged plus the one inserted,
 * which the statement's own snapshot does not see.
 */
export async function recordAttempt(
  deps: WebhookDeliveryLogDeps,
  request: webhooksV1.RecordAttemptRequest,
  context: RequestContext,
): Promise<webhooksV1.RecordAttemptResponse> {
  checkAttempt(request);
  const attemptedAt = request.attemptedAt ?? new Date();
  let rows: RecordedRow[];
  try {
    ({ rows } = await deps.pool.query<RecordedRow>(
      // The endpoint's row is locked before the message's (by the attempt's foreign key), in the order an
      // endpoint's deletion takes them: the two wait for each other instead of deadlocking.
      `WITH message AS (
         SELECT message.id, message.endpoint_id, endpoint.enabled, endpoint.failing_since
           FROM identity.webhook_messages message JOIN identity.webhook_endpoints endpoint ON endpoint.id = message.endpoint_id
          WHERE message.id = $2
            FOR KEY SHARE OF endpoint
       ), inserted AS (
         INSERT INTO identity.webhook_attempts (id, message_id, endpoint_id, status, response_status, duration_ms, attempted_at)
         SELECT $1, message.id, message.endpoint_id, $3, $4, $5, date_trunc('milliseconds', $6::timestamptz) FROM message
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       ), delivered AS (
         UPDATE identity.webhook_messages SET delivered_at = $6
          WHERE $3 = 'succeeded' AND id = $2 AND delivered_at IS NULL
         RETURNING id
       ), failing AS (
         UPDATE identity.webhook_endpoints endpoint
            SET failing_since = CASE WHEN $3 = 'succeeded' THEN NULL ELSE $6::timestamptz END
           FROM message
          WHERE endpoint.id = message.endpoint_id
            AND CASE WHEN $3 = 'succeeded' THEN endpoint.failing_since IS NOT NULL ELSE endpoint.failing_since IS NULL END
         RETURNING endpoint.failing_since
       )
       SELECT message.endpoint_id, message.enabled,
              (SELECT count(*)::int FROM identity.webhook_attempts attempt WHERE attempt.message_id = message.id)
                + (SELECT count(*)::int FROM inserted) AS attempts,
              message.enabled AND $3 <> 'succeeded'
                AND COALESCE((SELECT failing_since FROM failing), message.failing_since) <= now() - make_interval(secs => $7) AS disable_due
         FROM message`,
      [request.attemptId, request.messageId, request.status, request.responseStatus ?? null, request.durationMs, attemptedAt, deps.disableAfterMs / 1000],
    ));
  } catch (error) {
    // The message went between its look-up and the attempt's insert (the log's retention): as gone.
    if ((error as { code?: unknown }).code === '23503') return { endpointDisabled: true, attempts: 0 };
    throw error;
  }
  const recorded = rows[0];
  // A message deleted with its endpoint meanwhile: nothing to record, nothing more to send.
  if (!recorded) return { endpointDisabled: true, attempts: 0 };
  if (!recorded.disable_due) return { endpointDisabled: !recorded.enabled, attempts: recorded.attempts };
  const disabled = await withTransaction(deps.pool, context, (db) => disableIfFailingTooLong(db, deps, recorded.endpoint_id, context));
  return { endpointDisabled: disabled || !recorded.enabled, attempts: recorded.attempts };
}

/** Disables the endpoint when it has failed since before the allowed time; true when this call disabled it. */
async function disableIfFailingTooLong(db: pg.ClientBase, deps: WebhookDeliveryLogDeps, endpointId: string, context: RequestContext): Promise<boolean> {
  const { rows } = await db.query<{ organization_id: string; url: string; failing_since: Date; organization_name: string }>(
    `UPDATE identity.webhook_endpoints endpoint
        SET enabled = false, updated_at = date_trunc('milliseconds', now())
       FROM identity.organizations organization
      WHERE endpoint.id = $1 AND endpoint.enabled AND endpoint.failing_since <= now() - make_interval(secs => $2)
        AND organization.id = endpoint.organization_id
      RETURNING endpoint.organization_id, endpoint.url, endpoint.failing_since, organization.name AS organization_name`,
    [endpointId, deps.disableAfterMs / 1000],
  );
  const endpoint = rows[0];
  if (!endpoint) return false;
  const host = new URL(endpoint.url).host;
  await recordOrgAudit(
    db,
    {
      organizationId: endpoint.organization_id,
      action: 'webhook.disabled',
      actor: { type: 'system', id: '' },
      target: { type: 'webhook', id: endpointId },
      data: { host, failing_since: endpoint.failing_since.toISOString() },
    },
    context,
  );
  const { rows: owners } = await db.query<{ email: string; handle: string }>(
    `SELECT account.email, account.handle
       FROM identity.org_memberships membership JOIN identity.users account ON account.id = membership.user_id
      WHERE membership.organization_id = $1 AND membership.role = 'owner' AND membership.status = 'active'`,
    [endpoint.organization_id],
  );
  for (const owner of owners) {
    await queueMail(
      db,
      {
        template: 'webhook_disabled',
        to: owner.email,
        handle: owner.handle,
        organization_name: endpoint.organization_name,
        endpoint_host: host,
        failing_since: endpoint.failing_since.toISOString(),
      },
      context,
    );
  }
  return true;
}

/** Batches of old messages removed at once, so that retention never holds a long lock. */
const RETENTION_BATCH = 5_000;

/**
 * Removes messages (and their attempts) created before `cutoff`
 * (WEBHOOK_LOG_RETENTION_DAYS): the delivery log is for finding out what an
 * endpoint missed lately, not an archive; the audit log is that.
 */
export async function expireWebhookMessages(pool: pg.Pool, cutoff: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM identity.webhook_messages WHERE id IN (SELECT id FROM identity.webhook_messages WHERE created_at < $1 LIMIT ${RETENTION_BATCH})`,
      [cutoff],
    );
    removed += rowCount ?? 0;
    if ((rowCount ?? 0) < RETENTION_BATCH) return removed;
  }
}
