import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import { AppError } from '@latchkey/errors';
import { metadataKeys, operatorProblem, type RequestContext } from '@latchkey/grpc-kit';
import { pageKeySql } from './page-tokens';

/** What admin.v1 records: every change it makes, and every read that shows personal data. */
export type AdminAction =
  | 'disable_user'
  | 'enable_user'
  | 'revoke_all_sessions'
  | 'send_password_reset'
  | 'delete_user'
  | 'find_user'
  | 'list_users'
  | 'list_audit_log'
  | 'create_client'
  | 'update_client'
  | 'delete_client'
  | 'rotate_client_secret'
  | 'create_organization'
  | 'add_organization_member'
  | 'remove_organization_member'
  | 'delete_organization'
  | 'set_organization_sso_enforced';

type Queryable = pg.ClientBase | pg.Pool;

/** Who acted: the person, and the certificate identity of the program they used. */
export interface Actor {
  readonly operator: string;
  readonly caller: string;
}

/**
 * Who an audit entry names: the person the caller acts for, which every
 * admin.v1 call must say (proto/admin/v1/admin.proto), and the caller's
 * certificate, or that there was none to read. A call that names no one is
 * refused before it reads or changes anything: an entry with no person is
 * no use to an auditor.
 */
export function actorOf(context: RequestContext): Actor {
  const problem = context.operator === undefined ? 'must name the person at the keyboard' : operatorProblem(context.operator);
  if (problem !== undefined) throw AppError.validation([{ field: metadataKeys.operator, message: problem }]);
  return { operator: context.operator!.trim(), caller: context.caller ?? 'plaintext' };
}

export interface AuditRecord {
  id: string;
  at: Date;
  operator: string;
  caller: string;
  action: AdminAction;
  user_id: string | null;
  reason: string;
  /** The OpenID client acted on (docs/oidc.md, "Clients"); null for an account's entry. */
  client_id: string | null;
  /** The organisation acted on (docs/organisations.md, "For operators"); null for other entries. */
  organization_id: string | null;
}

/**
 * Writes one entry per account acted on or shown (one without an account
 * for `userIds` empty), in the caller's transaction for a change. The table
 * only grows (migrations/006_audit_trail.sql). It holds account ids, never
 * an email or a handle: an entry outlives the account, and an append-only
 * table cannot forget what it was given.
 */
export async function recordAdminAction(
  db: Queryable,
  entry: Actor & { action: AdminAction; userIds: readonly (string | null)[]; reason?: string; clientId?: string; organizationId?: string },
): Promise<void> {
  await db.query(
    `INSERT INTO identity.admin_audit_log (id, operator, caller, action, user_id, reason, client_id, organization_id)
     SELECT id, $1, $2, $3, user_id, $4, $7, $8 FROM unnest($5::uuid[], $6::uuid[]) AS entry (id, user_id)`,
    [
      entry.operator,
      entry.caller,
      entry.action,
      entry.reason ?? '',
      entry.userIds.map(() => uuidv7()),
      entry.userIds,
      entry.clientId ?? null,
      entry.organizationId ?? null,
    ],
  );
}

/** Up to `limit` entries before the (at, id) cursor, newest first, of one account or all. */
export async function listAuditPage(
  db: Queryable,
  options: { userId: string | undefined; limit: number; after: { at: string; id: string } | undefined },
): Promise<(AuditRecord & { page_key: string })[]> {
  const conditions: string[] = [];
  const values: unknown[] = [options.limit];
  if (options.userId !== undefined) {
    values.push(options.userId);
    conditions.push(`user_id = $${values.length}`);
  }
  if (options.after !== undefined) {
    values.push(options.after.at, options.after.id);
    conditions.push(`(at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const { rows } = await db.query<AuditRecord & { page_key: string }>(
    `SELECT id, at, operator, caller, action, user_id, reason, client_id, organization_id, ${pageKeySql('at')} AS page_key FROM identity.admin_audit_log ${where} ORDER BY at DESC, id DESC LIMIT $1`,
    values,
  );
  return rows;
}
