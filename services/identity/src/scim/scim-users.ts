import type pg from 'pg';
import type { scimV1 } from '@latchkey/contracts';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import { queueEvent } from '@latchkey/domain-events';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { checkNewEmail, normalizeEmail } from '../account-rules';
import type { IdentityDeps } from '../identity-deps';
import { endSessionsNow, queueSessionsRevoked } from '../session-revocation';
import { findUserByEmail, findUserById, raiseSessionEpoch } from '../user-store';
import { insertMembership } from '../orgs/membership-store';
import { isId } from '../orgs/org-fields';
import { recordOrgAudit, type AuditChange } from '../orgs/org-audit-log';
import { createSsoAccount, linkSsoAccount } from '../orgs/sso-members';
import { emailDomainOf } from '../orgs/sso-domain-names';
import { filterToSql, parseFilter, type FilterColumn } from './scim-filter';
import { attributeOf, expandValueObject, readOperations, scimBoolean, type ReadOperation } from './scim-patch';
import { authenticate, type ScimCaller } from './scim-tokens';
import { pageOf, type Page } from './scim-pages';
import { queueOrgEvent } from '../orgs/webhook-messages';

/** What provisioning needs of identity: the database, and the session store where a suspension ends sessions at once. */
export type ScimDeps = Pick<IdentityDeps, 'pool' | 'sessions' | 'tokenTtlMinutes'>;

/** The SCIM attributes Latchkey keeps of a User (docs/scim.md, "Attributes"); others are accepted and not kept. */
interface UserAttributes {
  readonly userName: string;
  readonly externalId: string | null;
  readonly givenName: string;
  readonly familyName: string;
  readonly displayName: string;
  readonly active: boolean;
}

interface UserRow {
  user_id: string;
  email: string;
  external_id: string | null;
  given_name: string;
  family_name: string;
  display_name: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
  groups: { id: string; display_name: string }[];
}

const MAX_TEXT = 200;
export const MAX_EXTERNAL_ID = 500;

const USER_SELECT = `SELECT s.user_id, u.email, s.external_id, s.given_name, s.family_name, s.display_name, m.status = 'active' AS active,
    s.created_at, s.updated_at,
    coalesce((SELECT json_agg(json_build_object('id', g.id, 'display_name', g.display_name) ORDER BY g.display_name)
                FROM identity.scim_group_members gm JOIN identity.scim_groups g ON g.id = gm.group_id
               WHERE gm.organization_id = s.organization_id AND gm.user_id = s.user_id), '[]') AS groups
  FROM identity.scim_users s
  JOIN identity.users u ON u.id = s.user_id
  JOIN identity.org_memberships m ON m.organization_id = s.organization_id AND m.user_id = s.user_id`;

/** What a User filter may name (lower-cased attribute paths). */
const USER_COLUMNS: Readonly<Record<string, FilterColumn>> = {
  id: { sql: 's.user_id::text', caseExact: true },
  username: { sql: 'u.email', caseExact: false },
  externalid: { sql: 's.external_id', caseExact: true },
  displayname: { sql: 's.display_name', caseExact: false },
  'emails.value': { sql: 'u.email', caseExact: false },
  // The account's one address is its work address.
  'emails.type': { kind: 'exists', sql: (param) => `lower(${param}) = 'work'` },
  active: { sql: "(m.status = 'active')", kind: 'boolean' },
};

function userOf(row: UserRow): scimV1.User {
  return {
    id: row.user_id,
    externalId: row.external_id ?? '',
    userName: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    displayName: row.display_name,
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    groups: row.groups.map((group) => ({ id: group.id, displayName: group.display_name })),
  };
}

export function text(value: unknown, attribute: string, max = MAX_TEXT): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string' || [...value].length > max) throw new AppError('scim:invalid_value', `${attribute} must be a string of at most ${max} characters.`);
  return value;
}

export function resourceOf(json: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new AppError('scim:invalid_syntax', 'The body is not JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AppError('scim:invalid_syntax', 'The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

/** A User resource as POST and PUT carry it. */
function readUser(json: string): UserAttributes {
  const resource = resourceOf(json);
  const userName = attributeOf(resource, 'userName');
  if (typeof userName !== 'string' || userName.trim() === '') throw new AppError('scim:invalid_value', 'userName is required.');
  const name = attributeOf(resource, 'name');
  if (name !== undefined && name !== null && (typeof name !== 'object' || Array.isArray(name))) throw new AppError('scim:invalid_value', 'name must be an object.');
  const names = (name ?? {}) as Record<string, unknown>;
  const externalId = text(attributeOf(resource, 'externalId'), 'externalId', MAX_EXTERNAL_ID);
  const active = attributeOf(resource, 'active');
  return {
    userName: userName.trim(),
    externalId: externalId === '' ? null : externalId,
    givenName: text(attributeOf(names, 'givenName'), 'name.givenName'),
    familyName: text(attributeOf(names, 'familyName'), 'name.familyName'),
    displayName: text(attributeOf(resource, 'displayName'), 'displayName'),
    active: active === undefined || active === null ? true : scimBoolean(active, 'active'),
  };
}

/** One PATCH operation on a User's attributes; attributes Latchkey does not keep are let through untouched. */
function applyToUser(current: UserAttributes, operation: ReadOperation): UserAttributes {
  const { attribute, op, value } = operation;
  const removing = op === 'remove';
  switch (attribute) {
    case 'username': {
      const next = removing ? '' : text(value, 'userName');
      if (normalizeEmail(next) !== normalizeEmail(current.userName)) throw new AppError('scim:mutability', 'userName is the account email and cannot change through SCIM.');
      return current;
    }
    case 'emails': {
      // emails[type eq "work"].value, or emails with a list: the account has one address, the userName; a different one is refused.
      const addresses = operation.subAttribute === 'value' ? [value] : Array.isArray(value) ? value.map((item) => (item as Record<string, unknown> | null)?.['value']) : [];
      if (removing) return current;
      for (const address of addresses) {
        if (typeof address !== 'string') throw new AppError('scim:invalid_value', 'emails values must be strings.');
        if (normalizeEmail(address) !== normalizeEmail(current.userName)) throw new AppError('scim:mutability', "The account's address is its userName and cannot change through SCIM.");
      }
      return current;
    }
    case 'externalid': {
      const next = removing ? '' : text(value, 'externalId', MAX_EXTERNAL_ID);
      return { ...current, externalId: next === '' ? null : next };
    }
    case 'displayname':
      return { ...current, displayName: removing ? '' : text(value, 'displayName') };
    case 'name.givenname':
      return { ...current, givenName: removing ? '' : text(value, 'name.givenName') };
    case 'name.familyname':
      return { ...current, familyName: removing ? '' : text(value, 'name.familyName') };
    case 'name': {
      if (removing) return { ...current, givenName: '', familyName: '' };
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppError('scim:invalid_value', 'name must be an object.');
      const names = value as Record<string, unknown>;
      const given = attributeOf(names, 'givenName');
      const family = attributeOf(names, 'familyName');
      return {
        ...current,
        givenName: given === undefined ? current.givenName : text(given, 'name.givenName'),
        familyName: family === undefined ? current.familyName : text(family, 'name.familyName'),
      };
    }
    case 'active':
      if (removing) throw new AppError('scim:mutability', 'active cannot be removed.');
      return { ...current, active: scimBoolean(value, 'active') };
    default:
      return current;
  }
}

export function scimActor(caller: ScimCaller): AuditChange['actor'] {
  return { type: 'scim', id: caller.tokenId };
}

export async function lockOrganization(db: pg.ClientBase, organizationId: string): Promise<{ ssoEnforced: boolean }> {
  const { rows } = await db.query<{ sso_enforced: boolean }>('SELECT sso_enforced FROM identity.organizations WHERE id = $1 FOR UPDATE', [organizationId]);
  if (!rows[0]) throw new AppError('scim:unauthorized');
  return { ssoEnforced: rows[0].sso_enforced };
}

async function userRow(db: pg.ClientBase | pg.Pool, organizationId: string, userId: string): Promise<UserRow | undefined> {
  if (!isId(userId)) return undefined;
  const { rows } = await db.query<UserRow>(`${USER_SELECT} WHERE s.organization_id = $1 AND s.user_id = $2`, [organizationId, userId]);
  return rows[0];
}

async function writeAttributes(db: pg.ClientBase, organizationId: string, userId: string, attributes: UserAttributes): Promise<void> {
  try {
    await db.query('SAVEPOINT scim_user');
    await db.query(
      `UPDATE identity.scim_users SET external_id = $3, given_name = $4, family_name = $5, display_name = $6, updated_at = date_trunc('milliseconds', now())
        WHERE organization_id = $1 AND user_id = $2`,
      [organizationId, userId, attributes.externalId, attributes.givenName, attributes.familyName, attributes.displayName],
    );
    await db.query('RELEASE SAVEPOINT scim_user');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT scim_user');
    if (isUniqueViolation(error, 'scim_users_external_id')) throw new AppError('scim:uniqueness', 'Another User of this organisation has that externalId.');
    throw error;
  }
}

/** The last active owner stays: an identity provider cannot leave an organisation without one. */
async function refuseLastOwner(db: pg.ClientBase, organizationId: string, userId: string): Promise<void> {
  const { rows } = await db.query<{ last: boolean }>(
    `SELECT m.role = 'owner' AND (SELECT count(*) FROM identity.org_memberships o WHERE o.organization_id = $1 AND o.role = 'owner' AND o.status = 'active') <= 1 AS last
       FROM identity.org_memberships m WHERE m.organization_id = $1 AND m.user_id = $2 AND m.status = 'active'`,
    [organizationId, userId],
  );
  if (rows[0]?.last) throw new AppError('scim:mutability', 'This User is the last owner of the organisation.');
}

/**
 * Ends the account's sessions and OpenID refresh tokens in the caller's
 * transaction (a raised session epoch, the revocation job and event);
 * answers the epoch to end at once in Redis after the commit.
 */
async function endAccess(db: pg.ClientBase, userId: string, context: RequestContext): Promise<number> {
  const raised = (await raiseSessionEpoch(db, userId))!;
  await queueSessionsRevoked(db, raised, 'membership_suspended', context);
  return raised.session_epoch;
}

/** Suspends or reactivates a membership in the caller's transaction; answers the epoch to end sessions before, if any. */
async function setActive(
  db: pg.ClientBase,
  caller: ScimCaller,
  organization: { ssoEnforced: boolean },
  userId: string,
  active: boolean,
  context: RequestContext,
): Promise<number | undefined> {
  if (!active) await refuseLastOwner(db, caller.organizationId, userId);
  const { rowCount } = await db.query('UPDATE identity.org_memberships SET status = $3 WHERE organization_id = $1 AND user_id = $2 AND status <> $3', [
    caller.organizationId,
    userId,
    active ? 'active' : 'suspended',
  ]);
  if (rowCount === 0) return undefined;
  await db.query(`UPDATE identity.scim_users SET updated_at = date_trunc('milliseconds', now()) WHERE organization_id = $1 AND user_id = $2`, [caller.organizationId, userId]);
  const endSessions = !active && organization.ssoEnforced;
  if (active) await queueOrgEvent(db, 'org.member.reactivated', { organizationId: caller.organizationId, userId }, context);
  else await queueOrgEvent(db, 'org.member.suspended', { organizationId: caller.organizationId, userId, sessionsEnded: endSessions }, context);
  await recordOrgAudit(
    db,
    {
      organizationId: caller.organizationId,
      action: active ? 'org.member.reactivated' : 'org.member.suspended',
      actor: scimActor(caller),
      target: { type: 'user', id: userId },
      data: active ? {} : { sessions_ended: endSessions },
    },
    context,
  );
  return endSessions ? endAccess(db, userId, context) : undefined;
}

/** A provisioning call's transaction, with the token resolved inside it and sessions ended at once after the commit. */
export async function provisioning<T>(
  deps: ScimDeps,
  token: string,
  context: RequestContext,
  work: (db: pg.ClientBase, caller: ScimCaller, ended: (userId: string, epoch: number | undefined) => void) => Promise<T>,
): Promise<T> {
  const endings: { userId: string; epoch: number }[] = [];
  const result = await withTransaction(deps.pool, context, async (db) => {
    const caller = await authenticate(db, token);
    return work(db, caller, (userId, epoch) => {
      if (epoch !== undefined) endings.push({ userId, epoch });
    });
  });
  for (const ending of endings) await endSessionsNow(deps, ending.userId, ending.epoch, context);
  return result;
}

export async function createUser(deps: ScimDeps, request: scimV1.CreateUserRequest, context: RequestContext): Promise<scimV1.User> {
  const attributes = readUser(request.resourceJson);
  if (checkNewEmail(attributes.userName).length > 0) throw new AppError('scim:invalid_value', 'userName must be an email address.');
  const email = normalizeEmail(attributes.userName);
  return provisioning(deps, request.token, context, async (db, caller, ended) => {
    // The account's row before the organisation's, in the order an account deletion takes them.
    const found = await findUserByEmail(db, email);
    const existing = found && (await findUserById(db, found.id, true));
    const organization = await lockOrganization(db, caller.organizationId);
    const { rows: domains } = await db.query('SELECT FROM identity.org_domains WHERE organization_id = $1 AND domain = $2 AND verified_at IS NOT NULL', [
      caller.organizationId,
      emailDomainOf(email) ?? '',
    ]);
    if (domains.length === 0) throw new AppError('scim:invalid_value', "userName must be an address in one of the organisation's verified domains.");
    if (existing && (await userRow(db, caller.organizationId, existing.id))) throw new AppError('scim:uniqueness', 'A User with that userName exists in this organisation.');

    const account = existing ? { user: await linkSsoAccount(deps, db, existing, context), created: false } : await createSsoAccount(db, email);
    if (!existing && !account.created) await linkSsoAccount(deps, db, account.user, context);
    if (account.created) await queueEvent(db, 'user.registered', { userId: account.user.id, method: 'scim' }, context);
    const userId = account.user.id;
    await db.query('INSERT INTO identity.scim_users (organization_id, user_id) VALUES ($1, $2)', [caller.organizationId, userId]);
    await writeAttributes(db, caller.organizationId, userId, attributes);
    const { rows: memberships } = await db.query<{ status: string }>('SELECT status FROM identity.org_memberships WHERE organization_id = $1 AND user_id = $2', [
      caller.organizationId,
      userId,
    ]);
    if (memberships.length === 0) {
      await insertMembership(db, { organizationId: caller.organizationId, userId, role: 'member', source: 'scim', actorUserId: '', actor: scimActor(caller) }, context);
    } else {
      await recordOrgAudit(db, { organizationId: caller.organizationId, action: 'scim.user.linked', actor: scimActor(caller), target: { type: 'user', id: userId } }, context);
    }
    ended(userId, await setActive(db, caller, organization, userId, attributes.active, context));
    return userOf((await userRow(db, caller.organizationId, userId))!);
  });
}

export async function getUser(deps: ScimDeps, request: scimV1.GetUserRequest): Promise<scimV1.User> {
  const caller = await authenticate(deps.pool, request.token);
  const row = await userRow(deps.pool, caller.organizationId, request.userId);
  if (!row) throw new AppError('scim:not_found');
  return userOf(row);
}

export async function listUsers(deps: ScimDeps, request: scimV1.ListUsersRequest): Promise<{ totalResults: number; users: scimV1.User[]; startIndex: number }> {
  const caller = await authenticate(deps.pool, request.token);
  const page: Page = pageOf(request);
  const unfiltered = request.filter.trim() === '';
  const filter = unfiltered ? { where: 'true', params: [] } : filterToSql(parseFilter(request.filter), USER_COLUMNS, 1);
  // An import reads the whole directory without a filter: its count and page keys come from the listing index
  // alone (a scim_users row exists exactly while its membership does, 019_scim.sql), not from a join of 10,000 rows.
  const from =
    unfiltered
      ? 'FROM identity.scim_users s WHERE s.organization_id = $1'
      : `FROM identity.scim_users s JOIN identity.users u ON u.id = s.user_id
    JOIN identity.org_memberships m ON m.organization_id = s.organization_id AND m.user_id = s.user_id
    WHERE s.organization_id = $1 AND ${filter.where}`;
  const { rows: counted } = await deps.pool.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, [caller.organizationId, ...filter.params]);
  if (page.countOnly) return { totalResults: counted[0]!.n, users: [], startIndex: page.startIndex };
  // The page's keys first: a row skipped by OFFSET must not pay for its groups (USER_SELECT's subquery), or the
  // last page of a 10,000-user directory would aggregate the groups of every user before it.
  const { rows } = await deps.pool.query<UserRow>(
    `WITH page AS (
       SELECT s.user_id ${from}
        ORDER BY s.created_at, s.user_id OFFSET ${page.startIndex - 1} LIMIT ${page.count}
     )
     ${USER_SELECT} JOIN page ON page.user_id = s.user_id
      WHERE s.organization_id = $1
      ORDER BY s.created_at, s.user_id`,
    [caller.organizationId, ...filter.params],
  );
  return { totalResults: counted[0]!.n, users: rows.map(userOf), startIndex: page.startIndex };
}

/** Writes a User's new attributes (PUT, or PATCH after its operations), its status with them. */
async function updateUser(
  deps: ScimDeps,
  token: string,
  userId: string,
  context: RequestContext,
  next: (current: UserAttributes) => UserAttributes,
): Promise<scimV1.User> {
  return provisioning(deps, token, context, async (db, caller, ended) => {
    const organization = await lockOrganization(db, caller.organizationId);
    const row = await userRow(db, caller.organizationId, userId);
    if (!row) throw new AppError('scim:not_found');
    const current: UserAttributes = {
      userName: row.email,
      externalId: row.external_id,
      givenName: row.given_name,
      familyName: row.family_name,
      displayName: row.display_name,
      active: row.active,
    };
    const updated = next(current);
    if (normalizeEmail(updated.userName) !== normalizeEmail(row.email)) throw new AppError('scim:mutability', 'userName is the account email and cannot change through SCIM.');
    await writeAttributes(db, caller.organizationId, row.user_id, updated);
    ended(row.user_id, await setActive(db, caller, organization, row.user_id, updated.active, context));
    await recordOrgAudit(db, { organizationId: caller.organizationId, action: 'scim.user.updated', actor: scimActor(caller), target: { type: 'user', id: row.user_id } }, context);
    return userOf((await userRow(db, caller.organizationId, row.user_id))!);
  });
}

export async function replaceUser(deps: ScimDeps, request: scimV1.ReplaceUserRequest, context: RequestContext): Promise<scimV1.User> {
  const attributes = readUser(request.resourceJson);
  return updateUser(deps, request.token, request.userId, context, () => attributes);
}

export async function patchUser(deps: ScimDeps, request: scimV1.PatchUserRequest, context: RequestContext): Promise<scimV1.User> {
  const operations = readOperations(request.operations).flatMap(expandValueObject);
  return updateUser(deps, request.token, request.userId, context, (current) => operations.reduce(applyToUser, current));
}

export async function deleteUser(deps: ScimDeps, request: scimV1.DeleteUserRequest, context: RequestContext): Promise<void> {
  await provisioning(deps, request.token, context, async (db, caller, ended) => {
    const organization = await lockOrganization(db, caller.organizationId);
    const row = await userRow(db, caller.organizationId, request.userId);
    if (!row) throw new AppError('scim:not_found');
    await refuseLastOwner(db, caller.organizationId, row.user_id);
    const { rows: removed } = await db.query<{ role: string }>('DELETE FROM identity.org_memberships WHERE organization_id = $1 AND user_id = $2 RETURNING role', [
      caller.organizationId,
      row.user_id,
    ]);
    await db.query('DELETE FROM identity.scim_users WHERE organization_id = $1 AND user_id = $2', [caller.organizationId, row.user_id]);
    await queueOrgEvent(db, 'org.member.removed', { organizationId: caller.organizationId, userId: row.user_id, reason: 'scim', actorUserId: '' }, context);
    await recordOrgAudit(
      db,
      {
        organizationId: caller.organizationId,
        action: 'org.member.removed',
        actor: scimActor(caller),
        target: { type: 'user', id: row.user_id },
        data: { reason: 'scim', role: removed[0]?.role ?? '' },
      },
      context,
    );
    ended(row.user_id, organization.ssoEnforced ? await endAccess(db, row.user_id, context) : undefined);
  });
}
