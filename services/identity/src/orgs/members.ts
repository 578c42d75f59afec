import type pg from 'pg';
import { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { decodePageToken, encodePageToken } from '../page-tokens';
import type { OrgsDeps } from './orgs-deps';
import { checkId, checkRoleName, isId, refuse } from './org-fields';
import { actingMember, findMembership, listMembershipsOf, type Membership } from './membership-store';
import { mayGrant, permissionsOf } from './permissions';
import { removeOrganization } from './organizations';
import { actorOfChange, recordOrgAudit } from './org-audit-log';
import { queueOrgEvent } from './webhook-messages';

const sources: Readonly<Record<string, orgsV1.MembershipSource>> = {
  creator: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_CREATOR,
  invitation: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_INVITATION,
  sso: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SSO,
  scim: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SCIM,
  admin: orgsV1.MembershipSource.MEMBERSHIP_SOURCE_ADMIN,
};

interface MemberRow {
  user_id: string;
  handle: string;
  email: string;
  role: string;
  source: string;
  joined_at: Date;
}

export function memberOf(row: MemberRow): orgsV1.Member {
  return {
    userId: row.user_id,
    handle: row.handle,
    email: row.email,
    role: row.role,
    source: sources[row.source] ?? orgsV1.MembershipSource.MEMBERSHIP_SOURCE_UNSPECIFIED,
    joinedAt: row.joined_at,
  };
}

const MEMBER_SELECT = `SELECT m.user_id, u.handle, u.email, m.role, m.source, m.joined_at
  FROM identity.org_memberships m JOIN identity.users u ON u.id = m.user_id`;

/**
 * A page of an organisation's members in the order they joined, after the
 * cursor: keyset pages on (joined_at, user_id), an index range however
 * large the organisation. joined_at is kept in whole milliseconds (its
 * CHECK), so its Date is its exact page key.
 */
export async function memberPage(
  db: pg.ClientBase | pg.Pool,
  organizationId: string,
  page: { readonly limit: number; readonly cursor: string },
): Promise<{ members: orgsV1.Member[]; nextCursor: string }> {
  const after = decodePageToken(page.cursor, 'cursor');
  const { rows } = await db.query<MemberRow>(
    `${MEMBER_SELECT}
     WHERE m.organization_id = $1 AND m.status = 'active' AND ($2::timestamptz IS NULL OR (m.joined_at, m.user_id) > ($2, $3::uuid))
     ORDER BY m.joined_at, m.user_id LIMIT $4`,
    [organizationId, after?.at ?? null, after?.id ?? null, page.limit + 1],
  );
  const members = rows.slice(0, page.limit);
  const last = members[members.length - 1];
  return { members: members.map(memberOf), nextCursor: rows.length > page.limit && last ? encodePageToken(last.joined_at.toISOString(), last.user_id) : '' };
}

/** A page size: 1 to `max`; 0 means `fallback`. */
export function pageLimit(requested: number, fallback: number, max: number): number {
  if (requested === 0) return fallback;
  if (!Number.isInteger(requested) || requested < 1 || requested > max) throw AppError.validation([{ field: 'limit', message: `must be from 1 to ${max}` }]);
  return requested;
}

/** The members, a page at a time (members:read). */
export async function listMembers(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly limit: number; readonly cursor: string },
  context: RequestContext,
): Promise<{ members: orgsV1.Member[]; nextCursor: string }> {
  const limit = pageLimit(input.limit, 50, 100);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'members:read' });
    return memberPage(db, actor.organizationId, { limit, cursor: input.cursor });
  });
}

export async function memberRow(db: pg.ClientBase, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(`${MEMBER_SELECT} WHERE m.organization_id = $1 AND m.user_id = $2`, [organizationId, userId]);
  return rows[0];
}

/** How many owners a locked organisation has; a suspended one does not count. */
export async function ownerCount(db: pg.ClientBase, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ owners: number }>(
    `SELECT count(*)::int AS owners FROM identity.org_memberships WHERE organization_id = $1 AND role = 'owner' AND status = 'active'`,
    [organizationId],
  );
  return rows[0]!.owners;
}

/** The permissions of a role of the organisation, or org:role_not_found. */
export async function rolePermissions(db: pg.ClientBase, organizationId: string, role: string): Promise<string[]> {
  refuse(checkRoleName(role));
  const { rows } = await db.query<{ permissions: string[] }>('SELECT permissions FROM identity.org_roles WHERE organization_id = $1 AND name = $2', [
    organizationId,
    role,
  ]);
  if (!rows[0]) throw new AppError('org:role_not_found');
  return permissionsOf(role, rows[0].permissions);
}

/**
 * Gives a member another role (members:manage). Only an owner grants or
 * takes away owner, nobody grants more than they hold, and the last owner
 * keeps the role: the organisation's row is locked, so that two owners
 * demoting each other at once are counted one after the other and the
 * second is refused.
 */
export async function changeMemberRole(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly userId: string; readonly role: string },
  context: RequestContext,
): Promise<orgsV1.Member> {
  refuse(checkRoleName(input.role));
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'members:manage' });
    const target = isId(input.userId) ? await memberRow(db, actor.organizationId, input.userId) : undefined;
    if (!target) throw new AppError('org:member_not_found');
    const granted = await rolePermissions(db, actor.organizationId, input.role);
    if ((target.role === 'owner' && actor.role !== 'owner') || !mayGrant(actor, input.role, granted)) throw new AppError('org:forbidden');
    if (target.role === input.role) return memberOf(target);
    if (target.role === 'owner' && (await ownerCount(db, actor.organizationId)) <= 1) throw new AppError('org:last_owner');
    await db.query('UPDATE identity.org_memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2', [actor.organizationId, target.user_id, input.role]);
    await queueOrgEvent(db, 'org.member.role_changed',
      { organizationId: actor.organizationId, userId: target.user_id, role: input.role, previousRole: target.role, actorUserId: actor.userId },
      context,
    );
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'org.member.role_changed',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'user', id: target.user_id },
        data: { role: input.role, previous_role: target.role },
      },
      context,
    );
    return memberOf({ ...target, role: input.role });
  });
}

/**
 * Removes a member (members:manage; only an owner removes an owner), or
 * the actor itself, which is leaving and needs no permission. The last
 * owner neither leaves nor is removed.
 */
export async function removeMember(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly userId: string },
  context: RequestContext,
): Promise<void> {
  refuse(checkId(input.userId, 'user_id'));
  await withTransaction(deps.pool, context, async (db) => {
    const leaving = input.actorUserId === input.userId;
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, ...(leaving ? {} : { needs: 'members:manage' }) });
    const target = leaving ? actor : await findMembership(db, input.userId, actor.organizationId);
    if (!target) throw new AppError('org:member_not_found');
    if (target.role === 'owner' && actor.role !== 'owner') throw new AppError('org:forbidden');
    await deleteMembership(db, target, { reason: leaving ? 'left' : 'removed', actorUserId: actor.userId }, context);
  });
}

/**
 * Ends a membership of a locked organisation and announces it, in the
 * caller's transaction, for a member's removal, its leaving and an
 * operator's removal (admin.v1) alike: the last owner stays (org:last_owner).
 */
export async function deleteMembership(
  db: pg.ClientBase,
  target: Pick<Membership, 'organizationId' | 'userId' | 'role'>,
  by: { readonly reason: 'removed' | 'left' | 'admin' | 'scim'; readonly actorUserId: string },
  context: RequestContext,
): Promise<void> {
  if (target.role === 'owner' && (await ownerCount(db, target.organizationId)) <= 1) throw new AppError('org:last_owner');
  await db.query('DELETE FROM identity.org_memberships WHERE organization_id = $1 AND user_id = $2', [target.organizationId, target.userId]);
  await queueOrgEvent(db, 'org.member.removed', { organizationId: target.organizationId, userId: target.userId, reason: by.reason, actorUserId: by.actorUserId }, context);
  await recordOrgAudit(
    db,
    {
      organizationId: target.organizationId,
      action: 'org.member.removed',
      actor: actorOfChange(by.actorUserId, context),
      target: { type: 'user', id: target.userId },
      data: { reason: by.reason, role: target.role },
    },
    context,
  );
}

/**
 * What deleting an account does to its organisations, in the deletion's
 * transaction (account-deletion.ts): an organisation it is the only member
 * of goes with it; one it is the last owner of, with other members, stops
 * the deletion (org:last_owner); it leaves the others. The organisations'
 * rows are locked in id order, as every deletion takes them, so that two
 * deletions cannot wait on each other.
 */
export async function leaveOrganizationsOf(db: pg.ClientBase, userId: string, context: RequestContext): Promise<void> {
  const memberships = (await listMembershipsOf(db, userId)).sort((a, b) => a.organizationId.localeCompare(b.organizationId));
  for (const membership of memberships) {
    await db.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [membership.organizationId]);
    const { rows } = await db.query<{ members: number; owners: number }>(
      `SELECT count(*)::int AS members, (count(*) FILTER (WHERE role = 'owner'))::int AS owners
       FROM identity.org_memberships WHERE organization_id = $1`,
      [membership.organizationId],
    );
    const { members, owners } = rows[0]!;
    if (members === 1) {
      await removeOrganization(db, membership.organizationId, { reason: 'account_deleted', actorUserId: '' }, context);
      continue;
    }
    if (membership.role === 'owner' && owners === 1) {
      throw new AppError('org:last_owner', `The account is the last owner of ${membership.slug}, which has other members: make another member an owner, or delete it, first.`);
    }
    await db.query('DELETE FROM identity.org_memberships WHERE organization_id = $1 AND user_id = $2', [membership.organizationId, userId]);
    await queueOrgEvent(db, 'org.member.removed', { organizationId: membership.organizationId, userId, reason: 'account_deleted', actorUserId: '' }, context);
    await recordOrgAudit(
      db,
      {
        organizationId: membership.organizationId,
        action: 'org.member.removed',
        actor: { type: 'system', id: '' },
        target: { type: 'user', id: userId },
        data: { reason: 'account_deleted', role: membership.role },
      },
      context,
    );
  }
}
