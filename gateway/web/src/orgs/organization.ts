import type { components } from '@latchkey/client';

type Schemas = components['schemas'];
export type Organization = Schemas['Organization'];
export type OrganizationRole = Schemas['OrganizationRole'];
export type OrganizationMember = Schemas['OrganizationMember'];
export type OrganizationInvitation = Schemas['OrganizationInvitation'];
/** What an invitation link invites to, as anyone holding the link may read it. */
export type InvitationLookup = Schemas['InvitationLookup'];

/**
 * Whether the caller's role in `org` allows `permission` (docs/api.md,
 * "Organisations": the owner holds every permission, `resource:*` every
 * action of its resource). It decides which controls the page shows; the
 * API decides what happens, and its 403 is shown like any other answer.
 */
export function allows(org: Pick<Organization, 'role' | 'permissions'>, permission: string): boolean {
  if (org.role === 'owner') return true;
  const resource = permission.slice(0, permission.indexOf(':'));
  return org.permissions.includes(permission) || org.permissions.includes(`${resource}:*`);
}

/** Permissions as people type them: one a line, or separated by commas or spaces. */
export function parsePermissions(typed: string): string[] {
  return typed.split(/[\s,]+/).filter((permission) => permission !== '');
}
