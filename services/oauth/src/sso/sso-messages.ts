import { ssoV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { requireUserId } from '../input-rules';
import { serviceProviderUrls } from './service-provider-urls';
import type { AttributeMapping, GroupRole, SsoConnection } from './sso-connection-store';
import type { OidcInput, SamlInput } from './sso-connections';
import type { SignedIn } from './sso-sign-in';

/** Bounds what reaches the XML parser through gRPC; the parser checks its own, lower limit. */
const MAX_METADATA_FIELD = 512 * 1024;

export function connectionTypeFromMessage(type: ssoV1.ConnectionType): 'saml' | 'oidc' {
  if (type === ssoV1.ConnectionType.CONNECTION_TYPE_SAML) return 'saml';
  if (type === ssoV1.ConnectionType.CONNECTION_TYPE_OIDC) return 'oidc';
  throw AppError.validation([{ field: 'type', message: 'must be saml or oidc' }]);
}

export function samlInputFromMessage(message: ssoV1.SamlInput | undefined): SamlInput | undefined {
  if (!message) return undefined;
  if (message.idpMetadataXml.length > MAX_METADATA_FIELD) throw AppError.validation([{ field: 'idp_metadata_xml', message: 'is too large' }]);
  return {
    idpMetadataXml: message.idpMetadataXml,
    idpEntityId: message.idpEntityId,
    idpSsoUrl: message.idpSsoUrl,
    idpCertificates: message.idpCertificates,
    allowIdpInitiated: message.allowIdpInitiated,
    spCertificate: message.spCertificate,
    spPrivateKey: message.spPrivateKey,
    dropSpKeyPair: message.dropSpKeyPair,
  };
}

export function oidcInputFromMessage(message: ssoV1.OidcInput | undefined): OidcInput | undefined {
  return message && { issuer: message.issuer, clientId: message.clientId, clientSecret: message.clientSecret };
}

export function attributeMappingFromMessage(message: ssoV1.AttributeMapping | undefined): AttributeMapping | undefined {
  return message && { email: message.email, name: message.name, groups: message.groups };
}

export function groupRolesFromMessage(entries: readonly ssoV1.GroupRole[]): GroupRole[] {
  return entries.map((entry) => ({ group: entry.group, role: entry.role }));
}

export function requireConnectionId(value: string): string {
  return requireUserId(value, 'connection_id');
}

export function toConnectionMessage(connection: SsoConnection, publicUrl: string): ssoV1.Connection {
  const urls = serviceProviderUrls(publicUrl, connection.id);
  const common = {
    id: connection.id,
    organizationId: connection.organizationId,
    defaultRole: connection.defaultRole,
    attributeMapping: {
      email: connection.attributeMapping.email ?? '',
      name: connection.attributeMapping.name ?? '',
      groups: connection.attributeMapping.groups ?? '',
    },
    groupRoles: connection.groupRoles.map((entry) => ({ group: entry.group, role: entry.role })),
    createdAt: connection.createdAt,
    updatedAt: connection.updatedAt,
  };
  if (connection.type === 'oidc') {
    return {
      ...common,
      type: ssoV1.ConnectionType.CONNECTION_TYPE_OIDC,
      oidc: { issuer: connection.oidc.issuer, clientId: connection.oidc.clientId },
      redirectUri: urls.redirectUri,
    };
  }
  return {
    ...common,
    type: ssoV1.ConnectionType.CONNECTION_TYPE_SAML,
    saml: {
      idpEntityId: connection.saml.idpEntityId,
      idpSsoUrl: connection.saml.idpSsoUrl,
      idpCertificates: [...connection.saml.idpCertificates],
      allowIdpInitiated: connection.saml.allowIdpInitiated,
      encryptedAssertions: connection.saml.spKeyPair !== undefined,
      spCertificate: connection.saml.spKeyPair?.certificate ?? '',
    },
    sp: { entityId: urls.entityId, acsUrl: urls.acsUrl, metadataUrl: urls.metadataUrl },
    redirectUri: '',
  };
}

export function toSignedInMessage(signedIn: SignedIn): ssoV1.SignedIn {
  return {
    userId: signedIn.userId,
    organizationId: signedIn.organizationId,
    connectionId: signedIn.connectionId,
    createdAccount: signedIn.createdAccount,
    role: signedIn.role,
    returnTo: signedIn.returnTo,
  };
}
