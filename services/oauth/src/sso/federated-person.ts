import { AppError } from '@latchkey/errors';
import type { GroupRole, AttributeMapping } from './sso-connection-store';

/** What a validated answer of an identity provider says of a person. */
export interface FederatedPerson {
  /** SAML NameID or OpenID `sub`: who the person is at this connection. */
  readonly subject: string;
  readonly email: string;
  /** Whether the provider vouches for the email (identity refuses otherwise). */
  readonly emailVerified: boolean;
  readonly name: string;
  readonly groups: readonly string[];
}

/** SAML attribute names the big IdPs send by default (docs/sso.md, "Options"); first found wins. */
export const DEFAULT_SAML_ATTRIBUTES = {
  email: ['email', 'mail', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'],
  name: ['name', 'displayName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', 'urn:oid:2.16.840.1.113730.3.1.241'],
  groups: ['groups', 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups', 'memberOf'],
} as const;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The values of the mapped attribute, or of the first default one present. */
export function mappedValues(attributes: ReadonlyMap<string, readonly string[]>, mapped: string | undefined, defaults: readonly string[]): readonly string[] {
  for (const name of mapped === undefined ? defaults : [mapped]) {
    const values = attributes.get(name);
    if (values && values.length > 0) return values;
  }
  return [];
}

/** The person of a SAML assertion: the email from the mapped attribute, else a NameID that is an email address. */
export function personOfSamlAssertion(
  assertion: { subject: string; attributes: ReadonlyMap<string, readonly string[]> },
  mapping: AttributeMapping,
): FederatedPerson {
  const email = mappedValues(assertion.attributes, mapping.email, DEFAULT_SAML_ATTRIBUTES.email)[0] ?? (EMAIL.test(assertion.subject) ? assertion.subject : '');
  if (!EMAIL.test(email)) throw new AppError('sso:response_invalid', 'The identity provider sent no email address.');
  return {
    subject: assertion.subject,
    email: email.toLowerCase(),
    // An assertion signed by the organisation's own IdP vouches for the address (docs/decisions/0004-enterprise-sso.md).
    emailVerified: true,
    name: mappedValues(assertion.attributes, mapping.name, DEFAULT_SAML_ATTRIBUTES.name)[0] ?? '',
    groups: mappedValues(assertion.attributes, mapping.groups, DEFAULT_SAML_ATTRIBUTES.groups),
  };
}

/** The first group_roles entry naming a group of the person wins; else the default role. */
export function roleOf(groups: readonly string[], groupRoles: readonly GroupRole[], defaultRole: string): { role: string; fromGroups: boolean } {
  const match = groupRoles.find((entry) => groups.includes(entry.group));
  return match ? { role: match.role, fromGroups: true } : { role: defaultRole, fromGroups: false };
}

