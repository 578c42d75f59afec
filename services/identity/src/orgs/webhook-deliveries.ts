import type { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { decodePageToken, encodePageToken, pageKeySql, pageSizeOf } from '../page-tokens';
import type { OrgsDeps } from './orgs-deps';
import { actingMember } from './membership-store';
import { isId } from './org-fields';
import { queueDelivery, queueTestMessage } from './webhook-messages';
import { findWebhook, WEBHOOKS_MANAGE } from './webhooks';

interface EndpointCall {
  readonly actorUserId: string;
  readonly organizationId: string;
  readonly webhookId: string;
}

interface AttemptRow {
  id: string;
  message_id: string;
  type: string;
  status: string;
  response_status: number | null;
  duration_ms: number;
  attempted_at: Date;
  page_key: string;
}

/** An endpoint's attempts, newest first, by keyset (webhooks:manage). */
export async function listWebhookDeliveries(
  deps: OrgsDeps,
  input: EndpointCall & { readonly limit: number; readonly cursor: string },
  context: RequestContext,
): Promise<orgsV1.ListWebhookDeliveriesResponse> {
  const limit = pageSizeOf(input.limit, 'limit');
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    const endpoint = await findWebhook(db, actor.organizationId, input.webhookId);
    const after = decodePageToken(input.cursor, 'cursor');
    const values: unknown[] = [endpoint.id];
    let where = 'attempt.endpoint_id = $1';
    if (after) {
      values.push(after.at, after.id);
      where += ' AND (attempt.attempted_at, attempt.id) < ($2::timestamptz, $3::uuid)';
    }
    values.push(limit + 1);
    const { rows } = await db.query<AttemptRow>(
      `SELECT attempt.id, attempt.message_id, message.type, attempt.status, attempt.response_status, attempt.duration_ms, attempt.attempted_at,
              ${pageKeySql('attempt.attempted_at')} AS page_key
         FROM identity.webhook_attempts attempt JOIN identity.webhook_messages message ON message.id = attempt.message_id
        WHERE ${where}
        ORDER BY attempt.attempted_at DESC, attempt.id DESC
        LIMIT $${values.length}`,
      values,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      deliveries: page.map((row) => ({
        id: row.id,
        messageId: row.message_id,
        eventType: row.type,
        status: row.status,
        responseStatus: row.response_status ?? undefined,
        durationMs: row.duration_ms,
        attemptedAt: row.attempted_at,
      })),
      nextCursor: rows.length > limit && last ? encodePageToken(last.page_key, last.id) : '',
    };
  });
}

/** Queues one more delivery of a message of this endpoint (webhooks:manage); a disabled endpoint is sent nothing. */
export async function retryWebhookDelivery(deps: OrgsDeps, input: EndpointCall & { readonly messageId: string }, context: RequestContext): Promise<string> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    const endpoint = await findWebhook(db, actor.organizationId, input.webhookId);
    if (!isId(input.messageId)) throw new AppError('webhook:not_found');
    const { rows } = await db.query('SELECT FROM identity.webhook_messages WHERE id = $1 AND endpoint_id = $2', [input.messageId, endpoint.id]);
    if (rows.length === 0) throw new AppError('webhook:not_found', 'No message with that id was sent to this endpoint.');
    if (!endpoint.enabled) throw new AppError('webhook:disabled');
    await queueDelivery(db, { message_id: input.messageId, endpoint_id: endpoint.id, again: true }, context);
    return input.messageId;
  });
}

/** Queues a `webhook.test` message to the endpoint (webhooks:manage). */
export async function sendTestWebhook(deps: OrgsDeps, input: EndpointCall, context: RequestContext): Promise<string> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    const endpoint = await findWebhook(db, actor.organizationId, input.webhookId);
    if (!endpoint.enabled) throw new AppError('webhook:disabled');
    return queueTestMessage(db, { id: endpoint.id, organizationId: actor.organizationId }, context);
  });
}
