import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { findUserById, type UserRecord } from '../user-store';
import type { OrgsDeps } from './orgs-deps';
import { checkId, checkSlug, organizationName, refuse } from './org-fields';
import { actingMember, findMembership, insertMembership, listMembershipsOf, organizationOf, type Membership } from './membership-store';
import { hasVerifiedDomain } from './org-domains';
import { actorOfChange, recordOrgAudit } from './org-audit-log';
import { builtInRoles, holds } from './permissions';
import { queueOrgEvent } from './webhook-messages';

const UNIQUE_VIOLATION = '23505';

/** A slug another organisation holds: the unique index says so, whoever won a race for it. */
async function slugTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: string; constraint?: string }).code === UNIQUE_VIOLATION && (error as { constraint?: string }).constraint === 'organizations_slug_key') {
      throw new AppError('org:slug_taken');
    }
    throw error;
  }
}

/**
 * Creates an organisation with its built-in roles and the actor as its
 * owner. The actor's row is locked, so that two creations at once count
 * each other against ORG_MAX_PER_USER.
 */
export async function createOrganization(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly name: string; readonly slug: string },
  context: RequestContext,
): Promise<orgsV1.Organization> {
  const { name, problems } = organizationName(input.name);
  refuse([...checkId(input.actorUserId, 'actor_user_id'), ...problems, ...checkSlug(input.slug)]);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await findUserById(db, input.actorUserId, true);
    if (!actor) throw new AppError('auth:unauthorized');
    return organizationOf(await insertOrganization(db, deps, { owner: actor, name, slug: input.slug, source: 'creator' }, context));
  });
}

/**
 * Creates an organisation with its built-in roles and its owner, in the
 * caller's transaction, under the one set of rules for a member's own
 * creation and an operator's (admin.v1): the name and slug checked by the
 * caller (organizationName, checkSlug), the owner's email verified,
 * it owns fewer than ORG_MAX_PER_USER organisations (its row locked by the
 * caller, so that two creations at once count each other), the slug is
 * free. An operator's organisation has no creating account: its owner's
 * membership is of source "admin".
 */
export async function insertOrganization(
  db: pg.ClientBase,
  deps: Pick<OrgsDeps, 'maxOrganizationsPerUser'>,
  input: { readonly owner: UserRecord; readonly name: string; readonly slug: string; readonly source: 'creator' | 'admin' },
  context: RequestContext,
): Promise<Membership> {
  const { owner } = input;
  if (!owner.email_verified_at) throw new AppError('auth:email_not_verified');
  const { rows } = await db.query<{ owned: number }>(`SELECT count(*)::int AS owned FROM identity.org_memberships WHERE user_id = $1 AND role = 'owner'`, [
    owner.id,
  ]);
  if (rows[0]!.owned >= deps.maxOrganizationsPerUser) throw new AppError('org:limit_reached');
  const id = randomUUID();
  await slugTaken(() => db.query('INSERT INTO identity.organizations (id, slug, name) VALUES ($1, $2, $3)', [id, input.slug, input.name]));
  await db.query(`INSERT INTO identity.org_roles (organization_id, name, built_in) SELECT $1, role, true FROM unnest($2::text[]) AS roles (role)`, [
    id,
    [...builtInRoles],
  ]);
  const actorUserId = input.source === 'creator' ? owner.id : '';
  await queueOrgEvent(db, 'org.created', { organizationId: id, slug: input.slug, actorUserId }, context);
  await recordOrgAudit(
    db,
    { organizationId: id, action: 'org.created', actor: actorOfChange(actorUserId, context), target: { type: 'organization', id }, data: { name: input.name, slug: input.slug } },
    context,
  );
  return insertMembership(db, { organizationId: id, userId: owner.id, role: 'owner', source: input.source, actorUserId }, context);
}

/** An organisation (by id or slug) as a member sees it. */
export async function getOrganization(deps: OrgsDeps, actorUserId: string, reference: string): Promise<orgsV1.Organization> {
  const membership = await findMembership(deps.pool, actorUserId, reference);
  if (!membership) throw new AppError('org:not_found');
  return organizationOf(membership);
}

/** The actor's organisations, oldest membership first. */
export async function listOrganizations(deps: OrgsDeps, actorUserId: string): Promise<orgsV1.Organization[]> {
  refuse(checkId(actorUserId, 'actor_user_id'));
  return (await listMembershipsOf(deps.pool, actorUserId)).map(organizationOf);
}

/**
 * Changes the name or slug (org:update), or the enforcement of SSO
 * (sso:manage), which needs a verified domain to cover anyone:
 * org:domain_unverified without one.
 */
export async function updateOrganization(
  deps: OrgsDeps,
  input: {
    readonly actorUserId: string;
    readonly organizationId: string;
    readonly name?: string | undefined;
    readonly slug?: string | undefined;
    readonly ssoEnforced?: boolean | undefined;
  },
  context: RequestContext,
): Promise<orgsV1.Organization> {
  const named = input.name === undefined ? undefined : organizationName(input.name);
  refuse([...(named?.problems ?? []), ...(input.slug === undefined ? [] : checkSlug(input.slug))]);
  return withTransaction(deps.pool, context, async (db) => {
    const renames = named !== undefined || input.slug !== undefined;
    const actor = await actingMember(db, input.actorUserId, input.organizationId, renames ? { lock: true, needs: 'org:update' } : { lock: true });
    if (input.ssoEnforced !== undefined) {
      if (!holds(actor.role, actor.permissions, 'sso:manage')) throw new AppError('org:forbidden');
      if (input.ssoEnforced && !(await hasVerifiedDomain(db, actor.organizationId))) {
        throw new AppError('org:domain_unverified', 'Verify a domain of the organisation before enforcing SSO.');
      }
      await db.query('UPDATE identity.organizations SET sso_enforced = $2, updated_at = now() WHERE id = $1', [actor.organizationId, input.ssoEnforced]);
    }
    if (!renames && input.ssoEnforced === undefined) return organizationOf(actor);
    await slugTaken(() =>
      db.query(`UPDATE identity.organizations SET name = coalesce($2, name), slug = coalesce($3, slug), updated_at = now() WHERE id = $1`, [
        actor.organizationId,
        named?.name ?? null,
        input.slug ?? null,
      ]),
    );
    const updated = (await findMembership(db, actor.userId, actor.organizationId))!;
    await queueOrgEvent(db, 'org.updated', { organizationId: updated.organizationId, slug: updated.slug, actorUserId: actor.userId }, context);
    await recordOrgAudit(
      db,
      {
        organizationId: updated.organizationId,
        action: 'org.updated',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'organization', id: updated.organizationId },
        data: { name: updated.name, slug: updated.slug },
      },
      context,
    );
    return organizationOf(updated);
  });
}

/** Deletes an organisation with everything it holds (org:delete). */
export async function deleteOrganization(deps: OrgsDeps, input: { readonly actorUserId: string; readonly organizationId: string }, context: RequestContext): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'org:delete' });
    await removeOrganization(db, actor.organizationId, { reason: 'user', actorUserId: actor.userId }, context);
  });
}

/**
 * Deletes a locked organisation in the caller's transaction: its roles,
 * memberships and invitations cascade; each member's removal and the
 * deletion are announced.
 */
export async function removeOrganization(
  db: pg.ClientBase,
  organizationId: string,
  by: { readonly reason: 'user' | 'admin' | 'account_deleted'; readonly actorUserId: string },
  context: RequestContext,
): Promise<void> {
  const { rows } = await db.query<{ user_id: string }>('SELECT user_id FROM identity.org_memberships WHERE organization_id = $1', [organizationId]);
  await db.query('DELETE FROM identity.organizations WHERE id = $1', [organizationId]);
  const removal = by.reason === 'user' ? 'removed' : by.reason;
  for (const { user_id: userId } of rows) {
    await queueOrgEvent(db, 'org.member.removed', { organizationId, userId, reason: removal, actorUserId: by.actorUserId }, context);
    await recordOrgAudit(
      db,
      { organizationId, action: 'org.member.removed', actor: actorOfChange(by.actorUserId, context), target: { type: 'user', id: userId }, data: { reason: removal } },
      context,
    );
  }
  await queueOrgEvent(db, 'org.deleted', { organizationId, reason: by.reason, actorUserId: by.actorUserId }, context);
  await recordOrgAudit(
    db,
    { organizationId, action: 'org.deleted', actor: actorOfChange(by.actorUserId, context), target: { type: 'organization', id: organizationId }, data: { reason: by.reason } },
    context,
  );
}
