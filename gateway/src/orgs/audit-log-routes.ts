import { Readable } from 'node:stream';
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { orgsV1 } from '@latchkey/contracts';
import { startRequestContext, type RequestContext } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';
import { timestamp } from '../http/fields';
import { problemResponses } from '../http/problem-schema';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import { orgIdParams } from './org-schemas';

export type AuditLogRoutesDeps = SessionAccess & {
  readonly orgs: OrgsClient;
  /** GRPC_DEADLINE_MS: each batch of an export is one call with this budget. */
  readonly callBudgetMs: number;
};

const actorTypes: Readonly<Record<number, string>> = {
  [orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_USER]: 'user',
  [orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_SCIM]: 'scim',
  [orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_ADMIN]: 'admin',
  [orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_SYSTEM]: 'system',
};

const subjectSchema = z.object({ type: z.string(), id: z.string() });

export const auditEntrySchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    seq: z.number().int(),
    action: z.string(),
    actor: z.object({ type: z.enum(['user', 'scim', 'admin', 'system']), id: z.string() }),
    target: subjectSchema,
    ip: z.string(),
    user_agent: z.string(),
    data: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    prev_hash: z.string(),
    hash: z.string().describe('SHA-256, hex, of the entry without `hash` as canonical JSON (docs/audit.md).'),
  })
  .describe('An audit entry, a link of the organisation’s hash chain (docs/audit.md).');

type AuditEntryView = z.infer<typeof auditEntrySchema>;

/** An entry as the list and the export show it: the object its hash covers, with the hash. */
export function auditEntryView(entry: orgsV1.AuditEntry): AuditEntryView {
  return {
    id: entry.id,
    organization_id: entry.organizationId,
    seq: entry.seq,
    action: entry.action,
    actor: { type: (actorTypes[entry.actorType] ?? 'system') as AuditEntryView['actor']['type'], id: entry.actorId },
    target: { type: entry.targetType, id: entry.targetId },
    ip: entry.ip,
    user_agent: entry.userAgent,
    data: JSON.parse(entry.dataJson) as Record<string, unknown>,
    created_at: entry.createdAt!.toISOString(),
    prev_hash: entry.prevHash,
    hash: entry.hash,
  };
}

const bounds = {
  since: timestamp.optional().describe('Entries written at or after this time.'),
  until: timestamp.optional().describe('Entries written before this time.'),
};

const listQuery = z.object({
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be 1-100').max(100, 'must be 1-100').optional(),
  cursor: z.string().min(1).max(512).optional().describe('Opaque; from next_cursor of the previous page.'),
  action: z.string().min(1).max(200).optional().describe('Only entries of this action, such as org.member.added.'),
  actor_id: z.string().min(1).max(200).optional().describe('Only entries of this actor.'),
  ...bounds,
});

const exportQuery = z.object(bounds);

const dateOf = (value: string | undefined): Date | undefined => (value === undefined ? undefined : new Date(value));

/**
 * The export's lines: the first batch, already fetched (so that a refusal
 * is an answer, not a cut stream), then one call per batch, each in a
 * context of its own with the call budget, until a batch says it is the
 * last. A failed call throws, which ends the response cut short
 * (docs/audit.md, "Checking an export"); a client that hangs up ends the
 * loop.
 */
async function* exportLines(
  first: orgsV1.ExportAuditLogResponse,
  next: (afterSeq: number, context: RequestContext) => Promise<orgsV1.ExportAuditLogResponse>,
  logger: Logger,
  requestId: string,
  budgetMs: number,
): AsyncGenerator<string> {
  let batch = first;
  for (;;) {
    if (batch.entries.length > 0) yield batch.entries.map((entry) => `${JSON.stringify(auditEntryView(entry))}\n`).join('');
    if (batch.done || batch.entries.length === 0) return;
    const started = startRequestContext({ requestId, logger, deadline: Date.now() + budgetMs });
    try {
      batch = await next(batch.entries[batch.entries.length - 1]!.seq, started.context);
    } finally {
      started.end();
    }
  }
}

/** An organisation's audit log (docs/api.md, "Organisations"; docs/audit.md). */
export function auditLogRoutes(deps: AuditLogRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.get(
      '/v0/orgs/:org_id/audit-log',
      {
        schema: {
          tags,
          summary: 'The audit log, newest first (audit:read); filters and keyset pages.',
          params: orgIdParams,
          querystring: listQuery,
          response: { 200: z.object({ items: z.array(auditEntrySchema), next_cursor: z.string().nullable() }), ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { query } = request;
        const page = await deps.orgs.listAuditLog(
          {
            actorUserId: sessionOf(request).userId,
            organizationId: request.params.org_id,
            limit: query.limit ?? 0,
            cursor: query.cursor ?? '',
            action: query.action ?? '',
            actorId: query.actor_id ?? '',
            since: dateOf(query.since),
            until: dateOf(query.until),
          },
          request.ctx,
        );
        return { items: page.entries.map(auditEntryView), next_cursor: page.nextCursor || null };
      },
    );

    app.get(
      '/v0/orgs/:org_id/audit-log/export',
      {
        schema: {
          tags,
          summary: 'Every entry, oldest first, as NDJSON, streamed (audit:read); docs/audit.md shows how to check it.',
          params: orgIdParams,
          querystring: exportQuery,
          produces: ['application/x-ndjson'],
          response: {
            200: {
              description: 'One audit entry per line, in chain order. A cut stream (no final chunk) is a failed export.',
              content: { 'application/x-ndjson': { schema: z.string() } },
            },
            ...problemResponses(400, 401, 403, 404, 503),
          },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const actorUserId = sessionOf(request).userId;
        const organizationId = request.params.org_id;
        const since = dateOf(request.query.since);
        const until = dateOf(request.query.until);
        const call = (afterSeq: number, context: RequestContext) => deps.orgs.exportAuditLog({ actorUserId, organizationId, afterSeq, since, until }, context);
        const first = await call(0, request.ctx);
        const lines = exportLines(first, call, request.log as Logger, request.id, deps.callBudgetMs);
        // The schema's string stands for the body in the OpenAPI document; the body sent is a stream of it, which Fastify pipes unserialised.
        const streaming: FastifyReply = reply;
        // One batch read ahead at most: the socket's backpressure holds the rest back in identity's table.
        return streaming.type('application/x-ndjson').send(Readable.from(lines, { highWaterMark: 1 }));
      },
    );
  };
}
