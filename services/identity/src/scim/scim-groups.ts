import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import type { scimV1 } from '@latchkey/contracts';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { rolePermissions } from '../orgs/members';
import { actingMember } from '../orgs/membership-store';
import { mayGrant } from '../orgs/permissions';
import { checkRoleName, isId, refuse } from '../orgs/org-fields';
import { recordOrgAudit, type AuditChange } from '../orgs/org-audit-log';
import { filterToSql, parseFilter, type FilterColumn } from './scim-filter';
import { attributeOf, expandValueObject, readOperations, type ReadOperation } from './scim-patch';
import { pageOf } from './scim-pages';
import { authenticate } from './scim-tokens';
import { MAX_EXTERNAL_ID, provisioning, resourceOf, scimActor, text, type ScimDeps } from './scim-users';
import { queueOrgEvent } from '../orgs/webhook-messages';

interface GroupRow {
  id: string;
  external_id: string | null;
  display_name: string;
  role: string | null;
  created_at: Date;
  updated_at: Date;
  members: { id: string; user_name: string }[] | null;
}

/** At most this many members are named in one request, so that a request stays one set-based statement of bounded size. */
const MAX_MEMBERS_PER_REQUEST = 10_000;

const GROUP_COLUMNS: Readonly<Record<string, FilterColumn>> = {
  id: { sql: 'g.id::text', caseExact: true },
  displayname: { sql: 'g.display_name', caseExact: false },
  externalid: { sql: 'g.external_id', caseExact: true },
  'members.value': {
    kind: 'exists',
    sql: (param) => `EXISTS (SELECT FROM identity.scim_group_members gm WHERE gm.group_id = g.id AND gm.user_id::text = lower(${param}))`,
  },
};

function groupSelect(withMembers: boolean): string {
  const members = withMembers
    ? `coalesce((SELECT json_agg(json_build_object('id', gm.user_id, 'user_name', u.email) ORDER BY u.email)
                FROM identity.scim_group_members gm JOIN identity.users u ON u.id = gm.user_id WHERE gm.group_id = g.id), '[]')`
    : 'NULL';
  return `SELECT g.id, g.external_id, g.display_name, g.role, g.created_at, g.updated_at, ${members} AS members FROM identity.scim_groups g`;
}

function groupOf(row: GroupRow): scimV1.Group {
  return {
    id: row.id,
    externalId: row.external_id ?? '',
    displayName: row.display_name,
    role: row.role ?? '',
    members: (row.members ?? []).map((member) => ({ id: member.id, userName: member.user_name })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function groupRow(db: pg.ClientBase | pg.Pool, organizationId: string, groupId: string, withMembers = true, lock = false): Promise<GroupRow | undefined> {
  if (!isId(groupId)) return undefined;
  const { rows } = await db.query<GroupRow>(`${groupSelect(withMembers)} WHERE g.organization_id = $1 AND g.id = $2${lock ? ' FOR UPDATE' : ''}`, [
    organizationId,
    groupId,
  ]);
  return rows[0];
}

/** The ids of a members list ([{value}]), each a User of the organisation, or scim:invalid_value naming none applied. */
function memberIdsOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  const ids = items.map((item) => {
    const id = item !== null && typeof item === 'object' ? attributeOf(item as Record<string, unknown>, 'value') : undefined;
    if (typeof id !== 'string' || !isId(id)) throw new AppError('scim:invalid_value', 'Each member must be {"value": "<User id>"}.');
    return id.toLowerCase();
  });
  if (ids.length > MAX_MEMBERS_PER_REQUEST) throw new AppError('scim:invalid_value', `At most ${MAX_MEMBERS_PER_REQUEST} members per request.`);
  return [...new Set(ids)];
}

/** Refuses ids that are not Users of the organisation, before anything is written. */
async function checkMembers(db: pg.ClientBase, organizationId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const { rows } = await db.query<{ unknown: number }>(
    `SELECT count(*)::int AS unknown FROM unnest($2::uuid[]) AS wanted(user_id)
      WHERE NOT EXISTS (SELECT FROM identity.scim_users s WHERE s.organization_id = $1 AND s.user_id = wanted.user_id)`,
    [organizationId, ids],
  );
  if (rows[0]!.unknown > 0) throw new AppError('scim:invalid_value', `${rows[0]!.unknown} member value(s) are not Users of this organisation; nothing was changed.`);
}

/**
 * Gives the SCIM-provisioned members among `userIds` the role their mapped
 * groups give (an admin-mapped group before others, then by role name;
 * `member` when none), in one statement; owners keep their role. Members
 * that joined otherwise keep the role an administrator gave them.
 */
async function applyGroupRoles(db: pg.ClientBase, organizationId: string, userIds: readonly string[], actor: AuditChange['actor'], context: RequestContext): Promise<void> {
  if (userIds.length === 0) return;
  const { rows } = await db.query<{ user_id: string; role: string; previous_role: string }>(
    `WITH wanted AS (
       SELECT w.user_id,
              coalesce((SELECT g.role FROM identity.scim_group_members gm JOIN identity.scim_groups g ON g.id = gm.group_id
                         WHERE gm.organization_id = $1 AND gm.user_id = w.user_id AND g.role IS NOT NULL
                         ORDER BY g.role = 'admin' DESC, g.role LIMIT 1), 'member') AS role
         FROM unnest($2::uuid[]) AS w(user_id)
     ), changed AS (
       SELECT m.user_id, w.role, m.role AS previous_role FROM identity.org_memberships m JOIN wanted w ON w.user_id = m.user_id
        WHERE m.organization_id = $1 AND m.source = 'scim' AND m.role <> 'owner' AND m.role <> w.role
        FOR UPDATE OF m
     )
     UPDATE identity.org_memberships m SET role = c.role FROM changed c
      WHERE m.organization_id = $1 AND m.user_id = c.user_id
     RETURNING m.user_id, c.role, c.previous_role`,
    [organizationId, userIds],
  );
  for (const row of rows) {
    await queueOrgEvent(db, 'org.member.role_changed', { organizationId, userId: row.user_id, role: row.role, previousRole: row.previous_role, actorUserId: '' }, context);
    await recordOrgAudit(
      db,
      { organizationId, action: 'org.member.role_changed', actor, target: { type: 'user', id: row.user_id }, data: { role: row.role, previous_role: row.previous_role, source: 'scim' } },
      context,
    );
  }
}

async function addMembers(db: pg.ClientBase, organizationId: string, groupId: string, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `INSERT INTO identity.scim_group_members (group_id, organization_id, user_id) SELECT $1, $2, id FROM unnest($3::uuid[]) AS id
     ON CONFLICT DO NOTHING RETURNING user_id`,
    [groupId, organizationId, ids],
  );
  return rows.map((row) => row.user_id);
}

async function removeMembers(db: pg.ClientBase, groupId: string, ids: readonly string[] | 'all'): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    ids === 'all'
      ? 'DELETE FROM identity.scim_group_members WHERE group_id = $1 RETURNING user_id'
      : 'DELETE FROM identity.scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[]) RETURNING user_id',
    ids === 'all' ? [groupId] : [groupId, ids],
  );
  return rows.map((row) => row.user_id);
}

async function writeGroupNames(db: pg.ClientBase, groupId: string, names: { displayName: string; externalId: string | null }): Promise<void> {
  try {
    await db.query('SAVEPOINT scim_group');
    await db.query(`UPDATE identity.scim_groups SET display_name = $2, external_id = $3, updated_at = date_trunc('milliseconds', now()) WHERE id = $1`, [
      groupId,
      names.displayName,
      names.externalId,
    ]);
    await db.query('RELEASE SAVEPOINT scim_group');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT scim_group');
    if (isUniqueViolation(error)) throw new AppError('scim:uniqueness', 'Another group of this organisation has that displayName.');
    throw error;
  }
}

function displayNameOf(value: unknown): string {
  const name = text(value, 'displayName').trim();
  if (name === '') throw new AppError('scim:invalid_value', 'displayName is required.');
  return name;
}

export async function createGroup(deps: ScimDeps, request: scimV1.CreateGroupRequest, context: RequestContext): Promise<scimV1.Group> {
  const resource = resourceOf(request.resourceJson);
  const displayName = displayNameOf(attributeOf(resource, 'displayName'));
  const externalId = text(attributeOf(resource, 'externalId'), 'externalId', MAX_EXTERNAL_ID);
  const members = attributeOf(resource, 'members');
  const memberIds = members === undefined || members === null ? [] : memberIdsOf(members);
  return provisioning(deps, request.token, context, async (db, caller) => {
    await checkMembers(db, caller.organizationId, memberIds);
    const id = uuidv7();
    try {
      await db.query('SAVEPOINT scim_group');
      await db.query('INSERT INTO identity.scim_groups (id, organization_id, display_name, external_id) VALUES ($1, $2, $3, $4)', [
        id,
        caller.organizationId,
        displayName,
        externalId === '' ? null : externalId,
      ]);
      await db.query('RELEASE SAVEPOINT scim_group');
    } catch (error) {
      await db.query('ROLLBACK TO SAVEPOINT scim_group');
      if (isUniqueViolation(error)) throw new AppError('scim:uniqueness', 'A group with that displayName exists in this organisation.');
      throw error;
    }
    await addMembers(db, caller.organizationId, id, memberIds);
    await recordOrgAudit(
      db,
      { organizationId: caller.organizationId, action: 'scim.group.created', actor: scimActor(caller), target: { type: 'scim_group', id }, data: { members_added: String(memberIds.length) } },
      context,
    );
    return groupOf((await groupRow(db, caller.organizationId, id))!);
  });
}

export async function getGroup(deps: ScimDeps, request: scimV1.GetGroupRequest): Promise<scimV1.Group> {
  const caller = await authenticate(deps.pool, request.token);
  const row = await groupRow(deps.pool, caller.organizationId, request.groupId, !request.excludeMembers);
  if (!row) throw new AppError('scim:not_found');
  return groupOf(row);
}

export async function listGroups(deps: ScimDeps, request: scimV1.ListGroupsRequest): Promise<{ totalResults: number; groups: scimV1.Group[]; startIndex: number }> {
  const caller = await authenticate(deps.pool, request.token);
  const page = pageOf(request);
  const filter = request.filter.trim() === '' ? { where: 'true', params: [] } : filterToSql(parseFilter(request.filter), GROUP_COLUMNS, 1);
  const { rows: counted } = await deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM identity.scim_groups g WHERE g.organization_id = $1 AND ${filter.where}`, [
    caller.organizationId,
    ...filter.params,
  ]);
  if (page.countOnly) return { totalResults: counted[0]!.n, groups: [], startIndex: page.startIndex };
  const { rows } = await deps.pool.query<GroupRow>(
    `${groupSelect(!request.excludeMembers)} WHERE g.organization_id = $1 AND ${filter.where}
      ORDER BY g.created_at, g.id OFFSET ${page.startIndex - 1} LIMIT ${page.count}`,
    [caller.organizationId, ...filter.params],
  );
  return { totalResults: counted[0]!.n, groups: rows.map(groupOf), startIndex: page.startIndex };
}

/** The member ids a value filter such as `members[value eq "…"]` names (eq on value, joined by or). */
function idsOfMemberFilter(operation: ReadOperation): string[] {
  const walk = (node: { op: string; attrPath?: string; compValue?: unknown; filters?: unknown[] }): string[] => {
    if (node.op === 'or') return (node.filters as (typeof node)[]).flatMap(walk);
    if (node.op === 'eq' && node.attrPath?.toLowerCase() === 'value' && typeof node.compValue === 'string' && isId(node.compValue)) return [node.compValue.toLowerCase()];
    throw new AppError('scim:invalid_path', 'A members path filter must be value eq "<User id>".');
  };
  return walk(operation.valueFilter as never);
}

export async function patchGroup(deps: ScimDeps, request: scimV1.PatchGroupRequest, context: RequestContext): Promise<scimV1.Group> {
  const operations = readOperations(request.operations).flatMap(expandValueObject);
  return provisioning(deps, request.token, context, async (db, caller) => {
    const group = await groupRow(db, caller.organizationId, request.groupId, false, true);
    if (!group) throw new AppError('scim:not_found');
    const names = { displayName: group.display_name, externalId: group.external_id };
    const touched = new Set<string>();
    let added = 0;
    let removed = 0;
    for (const operation of operations) {
      switch (operation.attribute) {
        case 'displayname':
          if (operation.op === 'remove') throw new AppError('scim:mutability', 'displayName cannot be removed.');
          names.displayName = displayNameOf(operation.value);
          break;
        case 'externalid': {
          const next = operation.op === 'remove' ? '' : text(operation.value, 'externalId', MAX_EXTERNAL_ID);
          names.externalId = next === '' ? null : next;
          break;
        }
        case 'members': {
          if (operation.subAttribute !== undefined) throw new AppError('scim:invalid_path', 'Members are changed as a whole, not by sub-attribute.');
          if (operation.op === 'remove') {
            // members[value eq "…"], or members with a value list (Entra), or members alone: every member.
            const ids = operation.valueFilter ? idsOfMemberFilter(operation) : operation.value === undefined ? 'all' : memberIdsOf(operation.value);
            const gone = await removeMembers(db, group.id, ids);
            gone.forEach((id) => touched.add(id));
            removed += gone.length;
            break;
          }
          if (operation.valueFilter) throw new AppError('scim:invalid_path', 'add and replace take members without a filter.');
          const ids = memberIdsOf(operation.value);
          await checkMembers(db, caller.organizationId, ids);
          if (operation.op === 'replace') {
            const gone = await removeMembers(db, group.id, 'all');
            gone.forEach((id) => touched.add(id));
            removed += gone.length;
          }
          const joined = await addMembers(db, caller.organizationId, group.id, ids);
          joined.forEach((id) => touched.add(id));
          added += joined.length;
          break;
        }
        // Okta repeats the id and the schemas in its value objects; they change nothing.
        case 'id':
        case 'schemas':
        case 'meta':
          break;
        default:
          throw new AppError('scim:invalid_path', `A group has no attribute ${operation.attribute ?? ''} to change.`);
      }
    }
    await writeGroupNames(db, group.id, names);
    if (group.role !== null) await applyGroupRoles(db, caller.organizationId, [...touched], scimActor(caller), context);
    await recordOrgAudit(
      db,
      {
        organizationId: caller.organizationId,
        action: 'scim.group.updated',
        actor: scimActor(caller),
        target: { type: 'scim_group', id: group.id },
        data: { members_added: String(added), members_removed: String(removed) },
      },
      context,
    );
    return groupOf((await groupRow(db, caller.organizationId, group.id, false))!);
  });
}

export async function deleteGroup(deps: ScimDeps, request: scimV1.DeleteGroupRequest, context: RequestContext): Promise<void> {
  await provisioning(deps, request.token, context, async (db, caller) => {
    const group = await groupRow(db, caller.organizationId, request.groupId, false, true);
    if (!group) throw new AppError('scim:not_found');
    const members = await removeMembers(db, group.id, 'all');
    await db.query('DELETE FROM identity.scim_groups WHERE id = $1', [group.id]);
    if (group.role !== null) await applyGroupRoles(db, caller.organizationId, members, scimActor(caller), context);
    await recordOrgAudit(db, { organizationId: caller.organizationId, action: 'scim.group.deleted', actor: scimActor(caller), target: { type: 'scim_group', id: group.id } }, context);
  });
}

/** PATCH /v0/orgs/{org_id}/scim/groups/{group_id} {role}: the members of a group hold the role (scim:manage). */
export async function mapGroupRole(deps: ScimDeps, request: scimV1.MapGroupRoleRequest, context: RequestContext): Promise<scimV1.Group> {
  if (request.role !== '') refuse(checkRoleName(request.role));
  if (request.role === 'owner') refuse([{ field: 'role', message: 'owner is given by an owner, not by a directory group' }]);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, request.actorUserId, request.organizationId, { lock: true, needs: 'scim:manage' });
    const group = await groupRow(db, actor.organizationId, request.groupId, false, true);
    if (!group) throw new AppError('scim:group_not_found');
    // A mapping hands the role to whoever the directory puts in the group: nobody maps more than they could grant.
    if (request.role !== '' && !mayGrant(actor, request.role, await rolePermissions(db, actor.organizationId, request.role))) throw new AppError('org:forbidden');
    await db.query(`UPDATE identity.scim_groups SET role = $2, updated_at = date_trunc('milliseconds', now()) WHERE id = $1`, [group.id, request.role === '' ? null : request.role]);
    const { rows: members } = await db.query<{ user_id: string }>('SELECT user_id FROM identity.scim_group_members WHERE group_id = $1', [group.id]);
    const by: AuditChange['actor'] = { type: 'user', id: actor.userId };
    await applyGroupRoles(db, actor.organizationId, members.map((member) => member.user_id), by, context);
    await recordOrgAudit(
      db,
      { organizationId: actor.organizationId, action: 'scim.group.role_mapped', actor: by, target: { type: 'scim_group', id: group.id }, data: { role: request.role } },
      context,
    );
    return groupOf((await groupRow(db, actor.organizationId, group.id, false))!);
  });
}

/** A page of groups an administrator can read and map in one go; more is the identity provider's listing's job. */
const MAX_GROUP_ROLES = 1_000;

export async function listGroupRoles(deps: ScimDeps, request: scimV1.ListGroupRolesRequest, context: RequestContext): Promise<scimV1.ListGroupRolesResponse> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, request.actorUserId, request.organizationId, { needs: 'scim:manage' });
    const { rows } = await db.query<{ id: string; display_name: string; role: string | null; member_count: number; updated_at: Date }>(
      `SELECT g.id, g.display_name, g.role, g.updated_at,
              (SELECT count(*)::int FROM identity.scim_group_members gm WHERE gm.group_id = g.id) AS member_count
         FROM identity.scim_groups g WHERE g.organization_id = $1 ORDER BY lower(g.display_name), g.id LIMIT $2`,
      [actor.organizationId, MAX_GROUP_ROLES + 1],
    );
    return {
      groups: rows.slice(0, MAX_GROUP_ROLES).map((row) => ({
        id: row.id,
        displayName: row.display_name,
        role: row.role ?? '',
        memberCount: row.member_count,
        updatedAt: row.updated_at,
      })),
      truncated: rows.length > MAX_GROUP_ROLES,
    };
  });
}
