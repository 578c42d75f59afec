import type pg from 'pg';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { requireUserId } from '../account-administration';
import { actorOf, recordAdminAction, type Actor } from '../audit-log';
import { pageKeySql } from '../page-tokens';
import { findUserById, holdUserById } from '../user-store';
import type { OrgsDeps } from './orgs-deps';
import { checkId, checkRoleName, checkSlug, organizationName, refuse } from './org-fields';
import { findMembership, insertMembership, type Membership } from './membership-store';
import { deleteMembership } from './members';
import { hasVerifiedDomain } from './org-domains';
import { insertOrganization, removeOrganization } from './organizations';

/** An organisation as an operator sees it (admin.v1 AdminOrganization). */
export interface OrganizationRecord {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly memberCount: number;
  /** Whether it enforces SSO for the accounts of its verified domains. */
  readonly ssoEnforced: boolean;
  /** Its place in the newest-first listing (page-tokens.ts). */
  readonly pageKey: string;
}

interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
  member_count: number;
  sso_enforced: boolean;
  page_key: string;
}

function recordOf(row: OrganizationRow): OrganizationRecord {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    createdAt: row.created_at,
    memberCount: row.member_count,
    ssoEnforced: row.sso_enforced,
    pageKey: row.page_key,
  };
}

const ORGANIZATION_SELECT = `SELECT o.id, o.slug, o.name, o.created_at, o.sso_enforced, ${pageKeySql('o.created_at')} AS page_key,
  (SELECT count(*)::int FROM identity.org_memberships m WHERE m.organization_id = o.id) AS member_count
  FROM identity.organizations o`;

/** Up to `limit` organisations before the (created_at, id) cursor, newest first. */
export async function listOrganizationsPage(db: pg.Pool, limit: number, after: { at: string; id: string } | undefined): Promise<OrganizationRecord[]> {
  const { rows } = await db.query<OrganizationRow>(
    `${ORGANIZATION_SELECT} WHERE $2::timestamptz IS NULL OR (o.created_at, o.id) < ($2, $3::uuid) ORDER BY o.created_at DESC, o.id DESC LIMIT $1`,
    [limit, after?.at ?? null, after?.id ?? null],
  );
  return rows.map(recordOf);
}

/**
 * One operator action on one organisation (docs/organisations.md, "For
 * operators"): its row locked (org:not_found when there is none), changed
 * under identity's organisation rules, and audited with the operator, in
 * one transaction.
 */
async function administerOrganization<T>(
  deps: OrgsDeps,
  organizationId: string,
  context: RequestContext,
  change: (db: pg.ClientBase, actor: Actor) => Promise<T>,
  options: { readonly holdUserId?: string } = {},
): Promise<T> {
  const actor = actorOf(context);
  refuse(checkId(organizationId, 'organization_id'));
  return withTransaction(deps.pool, context, async (db) => {
    const held = options.holdUserId === undefined || (await holdUserById(db, options.holdUserId)) !== undefined;
    const { rowCount } = await db.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [organizationId]);
    if (rowCount === 0) throw new AppError('org:not_found');
    if (!held) throw new AppError('user:not_found');
    return change(db, actor);
  });
}

/** An organisation whose owner is the account named, as the account's own creation would make it but for the source. */
export async function createOrganizationAsAdmin(
  deps: OrgsDeps,
  input: { readonly name: string; readonly slug: string; readonly ownerUserId: string },
  context: RequestContext,
): Promise<OrganizationRecord> {
  const actor = actorOf(context);
  const { name, problems } = organizationName(input.name);
  refuse([...problems, ...checkSlug(input.slug)]);
  const ownerId = requireUserId(input.ownerUserId, 'owner_user_id');
  return withTransaction(deps.pool, context, async (db) => {
    const owner = await findUserById(db, ownerId, true);
    if (!owner) throw new AppError('user:not_found');
    const membership = await insertOrganization(db, deps, { owner, name, slug: input.slug, source: 'admin' }, context);
    await recordAdminAction(db, { ...actor, action: 'create_organization', userIds: [owner.id], organizationId: membership.organizationId });
    const { rows } = await db.query<OrganizationRow>(`${ORGANIZATION_SELECT} WHERE o.id = $1`, [membership.organizationId]);
    return recordOf(rows[0]!);
  });
}

/** Makes an account a member with a role (source "admin"). */
export async function addMemberAsAdmin(
  deps: OrgsDeps,
  input: { readonly organizationId: string; readonly userId: string; readonly role: string },
  context: RequestContext,
): Promise<Membership> {
  refuse(checkRoleName(input.role));
  const userId = requireUserId(input.userId);
  return administerOrganization(
    deps,
    input.organizationId,
    context,
    async (db, actor) => {
      const membership = await insertMembership(db, { organizationId: input.organizationId, userId, role: input.role, source: 'admin', actorUserId: '' }, context);
      await recordAdminAction(db, { ...actor, action: 'add_organization_member', userIds: [userId], organizationId: input.organizationId });
      return membership;
    },
    { holdUserId: userId },
  );
}

/** Removes a member; the last owner stays. */
export async function removeMemberAsAdmin(deps: OrgsDeps, input: { readonly organizationId: string; readonly userId: string }, context: RequestContext): Promise<void> {
  const userId = requireUserId(input.userId);
  await administerOrganization(deps, input.organizationId, context, async (db, actor) => {
    const member = await findMembership(db, userId, input.organizationId);
    if (!member) throw new AppError('org:member_not_found');
    await deleteMembership(db, member, { reason: 'admin', actorUserId: '' }, context);
    await recordAdminAction(db, { ...actor, action: 'remove_organization_member', userIds: [userId], organizationId: input.organizationId });
  });
}

/** Deletes an organisation with everything it holds. */
export async function deleteOrganizationAsAdmin(deps: OrgsDeps, organizationId: string, context: RequestContext): Promise<void> {
  await administerOrganization(deps, organizationId, context, async (db, actor) => {
    await removeOrganization(db, organizationId, { reason: 'admin', actorUserId: '' }, context);
    await recordAdminAction(db, { ...actor, action: 'delete_organization', userIds: [null], organizationId });
  });
}

/**
 * Turns SSO enforcement on or off for an organisation: the operator's
 * break-glass when its identity provider is broken and its people are
 * locked out (docs/operations.md, "Enterprise SSO"). On needs a verified
 * domain, as for its members.
 */
export async function setSsoEnforcedAsAdmin(
  deps: OrgsDeps,
  input: { readonly organizationId: string; readonly ssoEnforced: boolean },
  context: RequestContext,
): Promise<OrganizationRecord> {
  return administerOrganization(deps, input.organizationId, context, async (db, actor) => {
    if (input.ssoEnforced && !(await hasVerifiedDomain(db, input.organizationId))) {
      throw new AppError('org:domain_unverified', 'The organisation has no verified domain to enforce SSO for.');
    }
    await db.query('UPDATE identity.organizations SET sso_enforced = $2, updated_at = now() WHERE id = $1', [input.organizationId, input.ssoEnforced]);
    await recordAdminAction(db, { ...actor, action: 'set_organization_sso_enforced', userIds: [null], organizationId: input.organizationId });
    const { rows } = await db.query<OrganizationRow>(`${ORGANIZATION_SELECT} WHERE o.id = $1`, [input.organizationId]);
    return recordOf(rows[0]!);
  });
}
