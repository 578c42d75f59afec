import { ssoV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { connectionSchema, createConnectionBody, updateConnectionBody } from './sso-schemas';

type ConnectionView = z.infer<typeof connectionSchema>;

export function connectionView(connection: ssoV1.Connection): ConnectionView {
  const mapping = connection.attributeMapping;
  const common = {
    id: connection.id,
    org_id: connection.organizationId,
    default_role: connection.defaultRole,
    attribute_mapping: {
      ...(mapping?.email ? { email: mapping.email } : {}),
      ...(mapping?.name ? { name: mapping.name } : {}),
      ...(mapping?.groups ? { groups: mapping.groups } : {}),
    },
    group_roles: connection.groupRoles.map((entry) => ({ group: entry.group, role: entry.role })),
    created_at: (connection.createdAt ?? new Date(0)).toISOString(),
    updated_at: (connection.updatedAt ?? new Date(0)).toISOString(),
  };
  if (connection.type === ssoV1.ConnectionType.CONNECTION_TYPE_OIDC) {
    return { ...common, type: 'oidc', issuer: connection.oidc?.issuer ?? '', client_id: connection.oidc?.clientId ?? '', redirect_uri: connection.redirectUri };
  }
  return {
    ...common,
    type: 'saml',
    idp_entity_id: connection.saml?.idpEntityId ?? '',
    idp_sso_url: connection.saml?.idpSsoUrl ?? '',
    idp_certificates: connection.saml?.idpCertificates ?? [],
    allow_idp_initiated: connection.saml?.allowIdpInitiated ?? false,
    sp_certificate: connection.saml?.spCertificate || null,
    sp: { entity_id: connection.sp?.entityId ?? '', acs_url: connection.sp?.acsUrl ?? '', metadata_url: connection.sp?.metadataUrl ?? '' },
  };
}

type SamlFields = Partial<Record<'idp_metadata_xml' | 'idp_entity_id' | 'idp_sso_url' | 'sp_certificate' | 'sp_private_key', string>> & {
  readonly idp_certificates?: readonly string[] | undefined;
  readonly allow_idp_initiated?: boolean | undefined;
  readonly drop_sp_key_pair?: boolean | undefined;
};

export function samlInputOf(body: SamlFields): ssoV1.SamlInput {
  return {
    idpMetadataXml: body.idp_metadata_xml ?? '',
    idpEntityId: body.idp_entity_id ?? '',
    idpSsoUrl: body.idp_sso_url ?? '',
    idpCertificates: [...(body.idp_certificates ?? [])],
    allowIdpInitiated: body.allow_idp_initiated,
    spCertificate: body.sp_certificate ?? '',
    spPrivateKey: body.sp_private_key ?? '',
    dropSpKeyPair: body.drop_sp_key_pair ?? false,
  };
}

export function attributeMappingOf(mapping: ConnectionView['attribute_mapping'] | undefined): ssoV1.AttributeMapping | undefined {
  return mapping && { email: mapping.email ?? '', name: mapping.name ?? '', groups: mapping.groups ?? '' };
}

/** The create request of a body: SAML or OpenID Connect. */
export function createRequestOf(body: z.infer<typeof createConnectionBody>): Pick<ssoV1.CreateConnectionRequest, 'type' | 'saml' | 'oidc' | 'defaultRole' | 'attributeMapping' | 'groupRoles'> {
  const common = {
    defaultRole: body.default_role ?? '',
    attributeMapping: attributeMappingOf(body.attribute_mapping),
    groupRoles: body.group_roles ?? [],
  };
  if (body.type === 'oidc') {
    return { ...common, type: ssoV1.ConnectionType.CONNECTION_TYPE_OIDC, oidc: { issuer: body.issuer, clientId: body.client_id, clientSecret: body.client_secret } };
  }
  return { ...common, type: ssoV1.ConnectionType.CONNECTION_TYPE_SAML, saml: samlInputOf(body) };
}

/** The update request of a PATCH body; the unit refuses the fields of the other type. */
export function updateRequestOf(body: z.infer<typeof updateConnectionBody>): Pick<ssoV1.UpdateConnectionRequest, 'saml' | 'oidc' | 'defaultRole' | 'attributeMapping' | 'replaceGroupRoles' | 'groupRoles'> {
  const samlGiven = [body.idp_metadata_xml, body.idp_entity_id, body.idp_sso_url, body.idp_certificates, body.allow_idp_initiated, body.sp_certificate, body.sp_private_key, body.drop_sp_key_pair].some(
    (value) => value !== undefined,
  );
  const oidcGiven = [body.issuer, body.client_id, body.client_secret].some((value) => value !== undefined);
  return {
    saml: samlGiven ? samlInputOf(body) : undefined,
    oidc: oidcGiven ? { issuer: body.issuer ?? '', clientId: body.client_id ?? '', clientSecret: body.client_secret ?? '' } : undefined,
    defaultRole: body.default_role,
    attributeMapping: attributeMappingOf(body.attribute_mapping),
    replaceGroupRoles: body.group_roles !== undefined,
    groupRoles: body.group_roles ?? [],
  };
}
