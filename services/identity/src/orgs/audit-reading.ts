import { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OrgsDeps } from './orgs-deps';
import { actingMember } from './membership-store';
import { pageLimit } from './members';
import { canonicalJson, exportOrgAuditBatch, listOrgAudit, type AuditEntry, type AuditFilter } from './org-audit-log';

const actorTypes: Readonly<Record<string, orgsV1.AuditActorType>> = {
  user: orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_USER,
  scim: orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_SCIM,
  admin: orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_ADMIN,
  system: orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_SYSTEM,
};

function auditEntryOf(entry: AuditEntry): orgsV1.AuditEntry {
  return {
    id: entry.id,
    organizationId: entry.organization_id,
    seq: entry.seq,
    action: entry.action,
    actorType: actorTypes[entry.actor.type] ?? orgsV1.AuditActorType.AUDIT_ACTOR_TYPE_UNSPECIFIED,
    actorId: entry.actor.id,
    targetType: entry.target.type,
    targetId: entry.target.id,
    ip: entry.ip,
    userAgent: entry.user_agent,
    dataJson: canonicalJson(entry.data),
    createdAt: new Date(entry.created_at),
    prevHash: entry.prev_hash,
    hash: entry.hash,
  };
}

const MAX_FILTER_LENGTH = 200;

function filterOf(input: { action?: string; actorId?: string; since?: Date | undefined; until?: Date | undefined }): AuditFilter {
  const problems = (['action', 'actorId'] as const)
    .filter((field) => (input[field] ?? '').length > MAX_FILTER_LENGTH)
    .map((field) => ({ field: field === 'actorId' ? 'actor_id' : field, message: `must be at most ${MAX_FILTER_LENGTH} characters` }));
  if (problems.length > 0) throw AppError.validation(problems);
  return {
    action: input.action || undefined,
    actorId: input.actorId || undefined,
    since: input.since,
    until: input.until,
  };
}

/** A page of the organisation's audit log, newest first (audit:read). */
export async function listAuditLog(deps: OrgsDeps, input: orgsV1.ListAuditLogRequest, context: RequestContext): Promise<orgsV1.ListAuditLogResponse> {
  const limit = pageLimit(input.limit, 50, 100);
  const filter = filterOf(input);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'audit:read' });
    const page = await listOrgAudit(db, actor.organizationId, filter, { limit, cursor: input.cursor });
    return { entries: page.entries.map(auditEntryOf), nextCursor: page.nextCursor };
  });
}

/** The next batch of an export, in chain order (audit:read). */
export async function exportAuditLog(deps: OrgsDeps, input: orgsV1.ExportAuditLogRequest, context: RequestContext): Promise<orgsV1.ExportAuditLogResponse> {
  if (!Number.isSafeInteger(input.afterSeq) || input.afterSeq < 0) throw AppError.validation([{ field: 'after_seq', message: 'must be a seq of the log, or 0' }]);
  const filter = filterOf({ since: input.since, until: input.until });
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'audit:read' });
    const batch = await exportOrgAuditBatch(db, actor.organizationId, filter, input.afterSeq);
    return { entries: batch.entries.map(auditEntryOf), done: batch.done };
  });
}
