import type { scimV1 } from '@latchkey/contracts';

/** RFC 7643/7644 schema URNs. */
export const SCIM_SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

/** A weak version from the last change, which IdPs may compare (meta.version). */
function versionOf(updatedAt: Date | undefined): string {
  return `W/"${(updatedAt ?? new Date(0)).getTime().toString(36)}"`;
}

/** A User as RFC 7643 §4.1 shows it; userName is the account's one (work) address. */
export function userResource(user: scimV1.User, baseUrl: string): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    schemas: [SCIM_SCHEMAS.user],
    id: user.id,
    userName: user.userName,
    name: { givenName: user.givenName, familyName: user.familyName, formatted: [user.givenName, user.familyName].filter((part) => part !== '').join(' ') },
    displayName: user.displayName,
    active: user.active,
    emails: [{ value: user.userName, type: 'work', primary: true }],
    groups: user.groups.map((group) => ({ value: group.id, display: group.displayName, $ref: `${baseUrl}/Groups/${group.id}` })),
    meta: {
      resourceType: 'User',
      created: user.createdAt?.toISOString(),
      lastModified: user.updatedAt?.toISOString(),
      location: `${baseUrl}/Users/${user.id}`,
      version: versionOf(user.updatedAt),
    },
  };
  if (user.externalId !== '') resource.externalId = user.externalId;
  return resource;
}

/** A Group as RFC 7643 §4.2 shows it. */
export function groupResource(group: scimV1.Group, baseUrl: string, withMembers: boolean): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    schemas: [SCIM_SCHEMAS.group],
    id: group.id,
    displayName: group.displayName,
    meta: {
      resourceType: 'Group',
      created: group.createdAt?.toISOString(),
      lastModified: group.updatedAt?.toISOString(),
      location: `${baseUrl}/Groups/${group.id}`,
      version: versionOf(group.updatedAt),
    },
  };
  if (withMembers) resource.members = group.members.map((member) => ({ value: member.id, display: member.userName, $ref: `${baseUrl}/Users/${member.id}` }));
  if (group.externalId !== '') resource.externalId = group.externalId;
  return resource;
}

/** A ListResponse (RFC 7644 §3.4.2). */
export function listResponse(totalResults: number, startIndex: number, resources: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { schemas: [SCIM_SCHEMAS.listResponse], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
