/**
 * Latchkey's own permissions in an organisation (docs/organisations.md,
 * "Roles and permissions"). Custom roles may hold these and any
 * permission of the deploying team's own applications.
 */
export const latchkeyPermissions = [
  'org:update',
  'org:delete',
  'members:read',
  'members:manage',
  'invitations:manage',
  'roles:manage',
  'sso:manage',
  'scim:manage',
  'webhooks:manage',
  'audit:read',
] as const;

export type LatchkeyPermission = (typeof latchkeyPermissions)[number];

export const builtInRoles = ['owner', 'admin', 'member'] as const;
export type BuiltInRole = (typeof builtInRoles)[number];

/**
 * What each built-in role holds. The owner holds every permission there is,
 * the applications' own too (`holds` says so); its list names Latchkey's.
 * The admin holds Latchkey's but deleting the organisation, and cannot
 * grant owner (memberships.ts); a member reads who else is a member.
 */
const builtInPermissions: Readonly<Record<BuiltInRole, readonly string[]>> = {
  owner: [...latchkeyPermissions],
  admin: latchkeyPermissions.filter((permission) => permission !== 'org:delete'),
  member: ['members:read'],
};

/** `resource:action`: a resource, and an action or `*` for all of the resource's (docs/organisations.md). */
export const PERMISSION = /^[a-z][a-z0-9_.-]*:[a-z*][a-z0-9_.*-]*$/;
/** Permissions one role may hold. */
export const MAX_ROLE_PERMISSIONS = 100;
const MAX_PERMISSION_LENGTH = 100;

export function isBuiltInRole(name: string): name is BuiltInRole {
  return (builtInRoles as readonly string[]).includes(name);
}

export function isPermission(value: string): boolean {
  return value.length <= MAX_PERMISSION_LENGTH && PERMISSION.test(value);
}

/** A role's permissions: the built-in roles' from the code, a custom role's as stored. Sorted, without repeats. */
export function permissionsOf(role: string, stored: readonly string[]): string[] {
  return [...new Set(isBuiltInRole(role) ? builtInPermissions[role] : stored)].sort();
}

/**
 * Whether a role holding `permissions` holds `wanted`: the owner holds
 * everything; otherwise the permission itself, or its resource's `*`.
 */
export function holds(role: string, permissions: readonly string[], wanted: string): boolean {
  if (role === 'owner') return true;
  const resource = wanted.slice(0, wanted.indexOf(':'));
  return permissions.includes(wanted) || permissions.includes(`${resource}:*`);
}

/** The resources of Latchkey's own permissions: `org`, `members`, ... */
const latchkeyResources = new Set(latchkeyPermissions.map((permission) => permission.slice(0, permission.indexOf(':'))));

/**
 * Whether an actor may hand out (or make) a role holding `granted`: only an
 * owner grants owner, and nobody grants one of Latchkey's own permissions
 * they do not hold, so that an admin cannot make or give a role that
 * deletes the organisation. The applications' own permissions are the
 * organisation's to hand out, by whoever manages its roles and members.
 */
export function mayGrant(actor: { readonly role: string; readonly permissions: readonly string[] }, role: string, granted: readonly string[]): boolean {
  if (actor.role === 'owner') return true;
  if (role === 'owner') return false;
  return granted.every((permission) => !latchkeyResources.has(permission.slice(0, permission.indexOf(':'))) || heldExactly(actor, permission));
}

/** Whether the actor holds every permission `permission` stands for (a wildcard stands for all of its resource's). */
function heldExactly(actor: { readonly role: string; readonly permissions: readonly string[] }, permission: string): boolean {
  if (!permission.endsWith(':*')) return holds(actor.role, actor.permissions, permission);
  const resource = permission.slice(0, -2);
  return actor.permissions.includes(permission) || latchkeyPermissions.filter((own) => own.startsWith(`${resource}:`)).every((own) => actor.permissions.includes(own));
}
