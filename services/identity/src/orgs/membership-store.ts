import type pg from 'pg';
import type { orgsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { isId } from './org-fields';
import { holds, permissionsOf } from './permissions';
import { actorOfChange, recordOrgAudit, type AuditChange } from './org-audit-log';
import { queueOrgEvent } from './webhook-messages';

/** A user's membership of an organisation, with the organisation and the role's permissions. */
export interface Membership {
  readonly organizationId: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly userId: string;
  readonly role: string;
  /** The role's permissions (permissions.ts, `permissionsOf`). */
  readonly permissions: string[];
  readonly source: string;
  readonly joinedAt: Date;
  /** Whether the organisation enforces SSO for the accounts of its verified domains. */
  readonly ssoEnforced: boolean;
}

interface MembershipRow {
  organization_id: string;
  slug: string;
  name: string;
  created_at: Date;
  user_id: string;
  role: string;
  stored_permissions: string[];
  source: string;
  joined_at: Date;
  sso_enforced: boolean;
}

const MEMBERSHIP_COLUMNS = `o.id AS organization_id, o.slug, o.name, o.created_at, m.user_id, m.role, r.permissions AS stored_permissions,
  m.source, m.joined_at, o.sso_enforced`;
// A suspended membership (SCIM, docs/scim.md) is no membership to any reader.
const MEMBERSHIP_FROM = `identity.org_memberships m
  JOIN identity.organizations o ON o.id = m.organization_id AND m.status = 'active'
  JOIN identity.org_roles r ON r.organization_id = m.organization_id AND r.name = m.role`;

function membershipOf(row: MembershipRow): Membership {
  return {
    organizationId: row.organization_id,
    slug: row.slug,
    name: row.name,
    createdAt: row.created_at,
    userId: row.user_id,
    role: row.role,
    permissions: permissionsOf(row.role, row.stored_permissions),
    source: row.source,
    joinedAt: row.joined_at,
    ssoEnforced: row.sso_enforced,
  };
}

/** The organisation as a member sees it (orgs.v1 Organization). */
export function organizationOf(membership: Membership): orgsV1.Organization {
  return {
    id: membership.organizationId,
    slug: membership.slug,
    name: membership.name,
    createdAt: membership.createdAt,
    role: membership.role,
    permissions: membership.permissions,
    ssoEnforced: membership.ssoEnforced,
  };
}

/** A user's membership of the organisation `reference` names (its id or its slug), read now; undefined when none. */
export async function findMembership(db: pg.ClientBase | pg.Pool, userId: string, reference: string): Promise<Membership | undefined> {
  if (!isId(userId)) return undefined;
  const byId = isId(reference);
  const { rows } = await db.query<MembershipRow>(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM ${MEMBERSHIP_FROM} WHERE m.user_id = $1 AND ${byId ? 'o.id = $2::uuid' : 'o.slug = $2'}`,
    [userId, reference],
  );
  return rows[0] && membershipOf(rows[0]);
}

/**
 * The role a user holds in an organisation, with its permissions, read
 * now; undefined when the user is no member. All a permission check needs:
 * two primary-key lookups, without the organisation's row and the dates a
 * membership carries, as services beside Latchkey ask it on their own hot
 * paths (CheckPermission).
 */
export async function findRole(db: pg.ClientBase | pg.Pool, userId: string, organizationId: string): Promise<{ role: string; permissions: string[] } | undefined> {
  const { rows } = await db.query<{ role: string; stored_permissions: string[] }>(
    `SELECT m.role, r.permissions AS stored_permissions FROM identity.org_memberships m
     JOIN identity.org_roles r ON r.organization_id = m.organization_id AND r.name = m.role
     WHERE m.organization_id = $1 AND m.user_id = $2 AND m.status = 'active'`,
    [organizationId, userId],
  );
  return rows[0] && { role: rows[0].role, permissions: permissionsOf(rows[0].role, rows[0].stored_permissions) };
}

/** Every membership of a user, oldest first. */
export async function listMembershipsOf(db: pg.ClientBase | pg.Pool, userId: string): Promise<Membership[]> {
  if (!isId(userId)) return [];
  const { rows } = await db.query<MembershipRow>(`SELECT ${MEMBERSHIP_COLUMNS} FROM ${MEMBERSHIP_FROM} WHERE m.user_id = $1 ORDER BY m.joined_at, o.id`, [
    userId,
  ]);
  return rows.map(membershipOf);
}

/**
 * The acting user's membership of an organisation, for a call that acts
 * on it: org:not_found for an organisation the actor is not a member of,
 * as for one that does not exist. With `lock`, the organisation's row is
 * locked first (FOR UPDATE), which serializes every change to its owners
 * and members: the check that the organisation keeps an owner then counts
 * what is committed (memberships.ts).
 */
export async function actingMember(
  db: pg.ClientBase,
  actorUserId: string,
  organizationId: string,
  options: { readonly lock?: boolean; readonly needs?: string } = {},
): Promise<Membership> {
  if (!isId(organizationId) || !isId(actorUserId)) throw new AppError('org:not_found');
  if (options.lock) await db.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [organizationId]);
  const member = await findMembership(db, actorUserId, organizationId);
  if (!member) throw new AppError('org:not_found');
  if (options.needs !== undefined && !holds(member.role, member.permissions, options.needs)) throw new AppError('org:forbidden');
  return member;
}

/** Where a membership came from (org_memberships.source). */
export type MembershipSource = 'creator' | 'invitation' | 'sso' | 'scim' | 'admin';

/**
 * Makes an account a member with a role, in the caller's transaction with
 * the organisation's row locked, and announces it (org.member.added). The
 * role must be one of the organisation's (org:role_not_found), the account
 * not a member already (org:already_member).
 */
export async function insertMembership(
  db: pg.ClientBase,
  input: {
    readonly organizationId: string;
    readonly userId: string;
    readonly role: string;
    readonly source: MembershipSource;
    readonly actorUserId: string;
    /** Who the audit log names when no member acted (a SCIM token); else actorOfChange's answer. */
    readonly actor?: AuditChange['actor'];
  },
  context: RequestContext,
): Promise<Membership> {
  const { rows: roles } = await db.query('SELECT FROM identity.org_roles WHERE organization_id = $1 AND name = $2', [input.organizationId, input.role]);
  if (roles.length === 0) throw new AppError('org:role_not_found');
  const { rowCount } = await db.query(
    `INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, $3, $4) ON CONFLICT (organization_id, user_id) DO NOTHING`,
    [input.organizationId, input.userId, input.role, input.source],
  );
  if (rowCount === 0) throw new AppError('org:already_member');
  await queueOrgEvent(db, 'org.member.added', { organizationId: input.organizationId, userId: input.userId, role: input.role, source: input.source }, context);
  await recordOrgAudit(
    db,
    {
      organizationId: input.organizationId,
      action: 'org.member.added',
      actor: input.actor ?? actorOfChange(input.actorUserId, context),
      target: { type: 'user', id: input.userId },
      data: { role: input.role, source: input.source },
    },
    context,
  );
  return (await findMembership(db, input.userId, input.organizationId))!;
}
