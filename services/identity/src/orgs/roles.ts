import type pg from 'pg';
import type { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OrgsDeps } from './orgs-deps';
import { checkCustomRoleName, checkPermissions, checkRoleName, refuse } from './org-fields';
import { actingMember } from './membership-store';
import { actorOfChange, recordOrgAudit } from './org-audit-log';
import { builtInRoles, isBuiltInRole, mayGrant, permissionsOf } from './permissions';

const UNIQUE_VIOLATION = '23505';
/** Custom roles one organisation may have: what a member with roles:manage can make it keep. */
export const MAX_CUSTOM_ROLES = 100;
const FOREIGN_KEY_VIOLATION = '23503';

interface RoleRow {
  name: string;
  built_in: boolean;
  permissions: string[];
}

function roleOf(row: RoleRow): orgsV1.Role {
  return { name: row.name, permissions: permissionsOf(row.name, row.permissions), builtIn: row.built_in };
}

/** Built-in roles first, in their order, then custom ones by name. */
function byListingOrder(a: RoleRow, b: RoleRow): number {
  const rank = (row: RoleRow) => (row.built_in ? builtInRoles.indexOf(row.name as (typeof builtInRoles)[number]) : builtInRoles.length);
  return rank(a) - rank(b) || a.name.localeCompare(b.name);
}

async function findRole(db: pg.ClientBase, organizationId: string, name: string): Promise<RoleRow> {
  const { rows } = await db.query<RoleRow>('SELECT name, built_in, permissions FROM identity.org_roles WHERE organization_id = $1 AND name = $2', [
    organizationId,
    name,
  ]);
  if (!rows[0]) throw new AppError('org:role_not_found');
  return rows[0];
}

/** Permissions as stored: each once, sorted. */
function stored(permissions: readonly string[]): string[] {
  return [...new Set(permissions)].sort();
}

/**
 * Adds a custom role (roles:manage), up to MAX_CUSTOM_ROLES. Nobody makes a
 * role with one of Latchkey's permissions they do not hold: an admin
 * cannot make one that deletes the organisation.
 */
export async function createRole(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly name: string; readonly permissions: readonly string[] },
  context: RequestContext,
): Promise<orgsV1.Role> {
  refuse([...checkCustomRoleName(input.name), ...checkPermissions(input.permissions)]);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'roles:manage' });
    if (!mayGrant(actor, input.name, input.permissions)) throw new AppError('org:forbidden');
    const { rows } = await db.query<{ custom: number }>('SELECT count(*)::int AS custom FROM identity.org_roles WHERE organization_id = $1 AND NOT built_in', [
      actor.organizationId,
    ]);
    if (rows[0]!.custom >= MAX_CUSTOM_ROLES) throw new AppError('org:limit_reached', `An organisation has at most ${MAX_CUSTOM_ROLES} custom roles.`);
    try {
      await db.query('INSERT INTO identity.org_roles (organization_id, name, permissions) VALUES ($1, $2, $3)', [
        actor.organizationId,
        input.name,
        stored(input.permissions),
      ]);
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new AppError('org:role_exists');
      throw error;
    }
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'org.role.created',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'role', id: input.name },
        data: { permissions: stored(input.permissions) },
      },
      context,
    );
    return roleOf({ name: input.name, built_in: false, permissions: stored(input.permissions) });
  });
}

/** The organisation's roles (members:read). */
export async function listRoles(deps: OrgsDeps, input: { readonly actorUserId: string; readonly organizationId: string }, context: RequestContext): Promise<orgsV1.Role[]> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'members:read' });
    const { rows } = await db.query<RoleRow>('SELECT name, built_in, permissions FROM identity.org_roles WHERE organization_id = $1', [actor.organizationId]);
    return rows.sort(byListingOrder).map(roleOf);
  });
}

/** One role (members:read). */
export async function getRole(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly name: string },
  context: RequestContext,
): Promise<orgsV1.Role> {
  refuse(checkRoleName(input.name, 'name'));
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'members:read' });
    return roleOf(await findRole(db, actor.organizationId, input.name));
  });
}

/** Replaces a custom role's permissions (roles:manage); built-in roles do not change. */
export async function updateRole(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly name: string; readonly permissions: readonly string[] },
  context: RequestContext,
): Promise<orgsV1.Role> {
  refuse([...checkRoleName(input.name, 'name'), ...checkPermissions(input.permissions)]);
  if (isBuiltInRole(input.name)) throw AppError.validation([{ field: 'name', message: 'is a built-in role, which does not change' }]);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'roles:manage' });
    const role = await findRole(db, actor.organizationId, input.name);
    // Changing a role is granting what it will hold to everyone holding it, and taking away what it held.
    if (!mayGrant(actor, input.name, [...input.permissions, ...role.permissions])) throw new AppError('org:forbidden');
    await db.query('UPDATE identity.org_roles SET permissions = $3, updated_at = now() WHERE organization_id = $1 AND name = $2', [
      actor.organizationId,
      input.name,
      stored(input.permissions),
    ]);
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'org.role.updated',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'role', id: input.name },
        data: { permissions: stored(input.permissions), previous_permissions: role.permissions },
      },
      context,
    );
    return roleOf({ ...role, permissions: stored(input.permissions) });
  });
}

/** Deletes a custom role no member and no pending invitation holds (roles:manage). */
export async function deleteRole(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly name: string },
  context: RequestContext,
): Promise<void> {
  refuse(checkRoleName(input.name, 'name'));
  if (isBuiltInRole(input.name)) throw AppError.validation([{ field: 'name', message: 'is a built-in role, which does not go' }]);
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'roles:manage' });
    const role = await findRole(db, actor.organizationId, input.name);
    if (!mayGrant(actor, input.name, role.permissions)) throw new AppError('org:forbidden');
    const { rows } = await db.query<{ pending: boolean }>(
      `SELECT EXISTS (SELECT FROM identity.org_invitations WHERE organization_id = $1 AND role = $2
                        AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()) AS pending`,
      [actor.organizationId, input.name],
    );
    if (rows[0]!.pending) throw new AppError('org:role_in_use');
    try {
      await db.query('DELETE FROM identity.org_roles WHERE organization_id = $1 AND name = $2', [actor.organizationId, input.name]);
    } catch (error) {
      // A membership's role is a foreign key: members hold it.
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new AppError('org:role_in_use');
      throw error;
    }
    await recordOrgAudit(
      db,
      { organizationId: actor.organizationId, action: 'org.role.deleted', actor: actorOfChange(actor.userId, context), target: { type: 'role', id: input.name } },
      context,
    );
  });
}
