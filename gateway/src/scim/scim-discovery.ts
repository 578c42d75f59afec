import { SCIM_SCHEMAS } from './scim-resources';

/**
 * What the service provider supports (RFC 7644 §4): PATCH, filters (the
 * subset of docs/scim.md, up to MAX_COUNT results a page), no bulk, no
 * sorting, no ETags, no password changes; a bearer token of the organisation.
 */
export function serviceProviderConfig(baseUrl: string, maxResults: number): Record<string, unknown> {
  return {
    schemas: [SCIM_SCHEMAS.serviceProviderConfig],
    documentationUri: 'https://github.com/latchkey/latchkey/blob/main/docs/scim.md',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: 'A SCIM token of the organisation, in Authorization: Bearer.', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCIM_SCHEMAS.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: SCIM_SCHEMAS.user,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [SCIM_SCHEMAS.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: SCIM_SCHEMAS.group,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued: boolean;
  required: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable';
  returned: 'default' | 'always';
  uniqueness: 'none' | 'server';
  caseExact: boolean;
  subAttributes?: Attribute[];
}

const attribute = (name: string, type: Attribute['type'], more: Partial<Attribute> = {}): Attribute => ({
  name,
  type,
  multiValued: false,
  required: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  caseExact: false,
  ...more,
});

/** The attributes Latchkey keeps (docs/scim.md, "Attributes"); others are accepted and dropped. */
export function schemas(baseUrl: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCIM_SCHEMAS.schema],
      id: SCIM_SCHEMAS.user,
      name: 'User',
      description: 'An account member of the organisation',
      attributes: [
        attribute('userName', 'string', { required: true, uniqueness: 'server', mutability: 'immutable' }),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('name', 'complex', { subAttributes: [attribute('givenName', 'string'), attribute('familyName', 'string'), attribute('formatted', 'string', { mutability: 'readOnly' })] }),
        attribute('displayName', 'string'),
        attribute('active', 'boolean'),
        attribute('emails', 'complex', {
          multiValued: true,
          mutability: 'immutable',
          subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')],
        }),
        attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly', subAttributes: [attribute('value', 'string'), attribute('display', 'string')] }),
      ],
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_SCHEMAS.user}` },
    },
    {
      schemas: [SCIM_SCHEMAS.schema],
      id: SCIM_SCHEMAS.group,
      name: 'Group',
      description: 'A group of the organisation’s identity provider, optionally mapped to a role',
      attributes: [
        attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
        attribute('externalId', 'string', { caseExact: true }),
        attribute('members', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string', { mutability: 'immutable' }), attribute('display', 'string', { mutability: 'readOnly' })] }),
      ],
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_SCHEMAS.group}` },
    },
  ];
}
