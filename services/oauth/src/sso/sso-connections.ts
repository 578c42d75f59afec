import { createPrivateKey, createPublicKey, randomUUID, X509Certificate } from 'node:crypto';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { MAX_IDP_CERTIFICATES, normalizeCertificate, certificatePem } from './idp-certificates';
import { IdpMetadataError, parseIdpMetadata } from './idp-metadata';
import {
  deleteSsoConnection,
  findOrganizationSsoConnection,
  insertSsoConnection,
  listSsoConnections,
  replaceSsoConnection,
  type AttributeMapping,
  type GroupRole,
  type SamlConnectionSettings,
  type SsoConnection,
} from './sso-connection-store';
import type { SsoDeps } from './sso-deps';
import { connectionSecretContext } from './sso-key-purpose';

const ROLE_NAME = /^[a-z][a-z0-9_-]{0,47}$/;
const MAX_NAME_LENGTH = 256;
const MAX_GROUP_ROLES = 100;
const MAX_URL_LENGTH = 2_048;
const MAX_SECRET_LENGTH = 2_048;
const MAX_KEY_PEM_LENGTH = 16 * 1024;

/** A SAML connection as given to create or update it; metadata XML or the three fields. */
export interface SamlInput {
  readonly idpMetadataXml: string;
  readonly idpEntityId: string;
  readonly idpSsoUrl: string;
  readonly idpCertificates: readonly string[];
  readonly allowIdpInitiated?: boolean | undefined;
  readonly spCertificate: string;
  readonly spPrivateKey: string;
  readonly dropSpKeyPair: boolean;
}

export interface OidcInput {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface ConnectionScope {
  readonly actorUserId: string;
  readonly organizationId: string;
}

export interface CreateConnectionInput extends ConnectionScope {
  readonly type: 'saml' | 'oidc';
  readonly saml?: SamlInput | undefined;
  readonly oidc?: OidcInput | undefined;
  readonly defaultRole: string;
  readonly attributeMapping: AttributeMapping;
  readonly groupRoles: readonly GroupRole[];
}

export interface UpdateConnectionInput extends ConnectionScope {
  readonly connectionId: string;
  readonly saml?: SamlInput | undefined;
  readonly oidc?: OidcInput | undefined;
  readonly defaultRole?: string | undefined;
  readonly attributeMapping?: AttributeMapping | undefined;
  readonly groupRoles?: readonly GroupRole[] | undefined;
}

/**
 * Only a member holding `sso:manage` manages an organisation's connections
 * (docs/api.md, "Organisations"); a non-member learns nothing of the
 * organisation: org:not_found whether or not it exists.
 */
export async function requireSsoManager(deps: SsoDeps, scope: ConnectionScope, context: RequestContext): Promise<void> {
  const { found, organization } = await deps.organizations.getMembership(
    { userId: scope.actorUserId, organization: scope.organizationId },
    context,
  );
  if (!found || !organization) throw new AppError('org:not_found');
  if (!organization.permissions.includes('sso:manage')) throw new AppError('org:forbidden');
}

function isWebUrl(value: string, production: boolean): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (!production && url.protocol === 'http:');
  } catch {
    return false;
  }
}

function checkCommon(input: { defaultRole?: string | undefined; attributeMapping?: AttributeMapping | undefined; groupRoles?: readonly GroupRole[] | undefined }): FieldError[] {
  const problems: FieldError[] = [];
  if (input.defaultRole !== undefined && !ROLE_NAME.test(input.defaultRole)) {
    problems.push({ field: 'default_role', message: 'is not a role name' });
  }
  for (const key of ['email', 'name', 'groups'] as const) {
    const name = input.attributeMapping?.[key];
    if (name !== undefined && name.length > MAX_NAME_LENGTH) {
      problems.push({ field: `attribute_mapping.${key}`, message: `must be at most ${MAX_NAME_LENGTH} characters` });
    }
  }
  const groupRoles = input.groupRoles ?? [];
  if (groupRoles.length > MAX_GROUP_ROLES) problems.push({ field: 'group_roles', message: `must hold at most ${MAX_GROUP_ROLES} entries` });
  groupRoles.forEach((entry, index) => {
    if (entry.group.length === 0 || entry.group.length > MAX_NAME_LENGTH) {
      problems.push({ field: `group_roles[${index}].group`, message: `must be 1-${MAX_NAME_LENGTH} characters` });
    }
    if (!ROLE_NAME.test(entry.role)) problems.push({ field: `group_roles[${index}].role`, message: 'is not a role name' });
  });
  return problems;
}

/** Empty mapping fields mean "the default": they are not stored. */
function compactMapping(mapping: AttributeMapping): AttributeMapping {
  return Object.fromEntries(Object.entries(mapping).filter(([, value]) => typeof value === 'string' && value !== ''));
}

/** The identity provider of a SAML input: from its metadata, or from the three fields. */
function idpOf(input: SamlInput, production: boolean): Pick<SamlConnectionSettings, 'idpEntityId' | 'idpSsoUrl' | 'idpCertificates'> {
  if (input.idpMetadataXml !== '') {
    if (input.idpEntityId !== '' || input.idpSsoUrl !== '' || input.idpCertificates.length > 0) {
      throw AppError.validation([{ field: 'idp_metadata_xml', message: 'replaces idp_entity_id, idp_sso_url and idp_certificates: give one or the other' }]);
    }
    let descriptor;
    try {
      descriptor = parseIdpMetadata(input.idpMetadataXml);
    } catch (error) {
      if (error instanceof IdpMetadataError) throw AppError.validation([{ field: 'idp_metadata_xml', message: error.message }]);
      throw error;
    }
    if (!isWebUrl(descriptor.ssoUrl, production)) {
      throw AppError.validation([{ field: 'idp_metadata_xml', message: 'the SingleSignOnService Location must be an https URL' }]);
    }
    return { idpEntityId: descriptor.entityId, idpSsoUrl: descriptor.ssoUrl, idpCertificates: descriptor.certificates };
  }
  const problems: FieldError[] = [];
  if (input.idpEntityId.trim() === '' || input.idpEntityId.length > MAX_URL_LENGTH) {
    problems.push({ field: 'idp_entity_id', message: `must be 1-${MAX_URL_LENGTH} characters` });
  }
  if (!isWebUrl(input.idpSsoUrl, production)) problems.push({ field: 'idp_sso_url', message: 'must be an https URL' });
  const certificates = input.idpCertificates.map(normalizeCertificate);
  if (certificates.length === 0 || certificates.length > MAX_IDP_CERTIFICATES) {
    problems.push({ field: 'idp_certificates', message: `must hold 1-${MAX_IDP_CERTIFICATES} certificates` });
  }
  certificates.forEach((certificate, index) => {
    if (certificate === undefined) problems.push({ field: `idp_certificates[${index}]`, message: 'is not an X.509 certificate' });
  });
  if (problems.length > 0) throw AppError.validation(problems);
  return {
    idpEntityId: input.idpEntityId.trim(),
    idpSsoUrl: input.idpSsoUrl,
    idpCertificates: [...new Set(certificates as string[])],
  };
}

/** Whether the input replaces the identity provider (metadata or fields given). */
function replacesIdp(input: SamlInput): boolean {
  return input.idpMetadataXml !== '' || input.idpEntityId !== '' || input.idpSsoUrl !== '' || input.idpCertificates.length > 0;
}

/**
 * The SP key pair of a SAML input, sealed under the connection's id; the
 * certificate must carry the key's public half, or IdPs would encrypt to a
 * key this unit cannot open.
 */
function spKeyPairOf(deps: SsoDeps, connectionId: string, input: SamlInput): SamlConnectionSettings['spKeyPair'] {
  if (input.spCertificate === '' && input.spPrivateKey === '') return undefined;
  const problem = (message: string): AppError => AppError.validation([{ field: 'sp_private_key', message }]);
  if (input.spCertificate === '' || input.spPrivateKey === '') throw problem('is given together with sp_certificate');
  if (input.spPrivateKey.length > MAX_KEY_PEM_LENGTH) throw problem('is too long');
  const certificate = normalizeCertificate(input.spCertificate);
  if (certificate === undefined) throw AppError.validation([{ field: 'sp_certificate', message: 'is not an X.509 certificate' }]);
  let matches: boolean;
  try {
    const privateKey = createPrivateKey(input.spPrivateKey);
    if (privateKey.asymmetricKeyType !== 'rsa') throw problem('must be an RSA key (XML Encryption key transport)');
    const published = new X509Certificate(Buffer.from(certificate, 'base64')).publicKey.export({ type: 'spki', format: 'der' });
    matches = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).equals(published);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw problem('is not a PEM private key');
  }
  if (!matches) throw problem('does not belong to sp_certificate');
  const pem = createPrivateKey(input.spPrivateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certificate, sealedKey: deps.secretBox.seal(Buffer.from(pem, 'utf8'), connectionSecretContext(connectionId, 'saml-sp-key')) };
}

function checkOidc(input: OidcInput, production: boolean, secretRequired: boolean): void {
  const problems: FieldError[] = [];
  if (!isWebUrl(input.issuer, production)) problems.push({ field: 'issuer', message: 'must be an https URL' });
  if (input.clientId === '' || input.clientId.length > MAX_NAME_LENGTH) problems.push({ field: 'client_id', message: `must be 1-${MAX_NAME_LENGTH} characters` });
  if ((secretRequired && input.clientSecret === '') || input.clientSecret.length > MAX_SECRET_LENGTH) {
    problems.push({ field: 'client_secret', message: `must be 1-${MAX_SECRET_LENGTH} characters` });
  }
  if (problems.length > 0) throw AppError.validation(problems);
}

export async function createConnection(deps: SsoDeps, input: CreateConnectionInput, context: RequestContext): Promise<SsoConnection> {
  await requireSsoManager(deps, input, context);
  const problems = checkCommon(input);
  if (problems.length > 0) throw AppError.validation(problems);
  const id = randomUUID();
  const common = {
    id,
    organizationId: input.organizationId,
    defaultRole: input.defaultRole,
    attributeMapping: compactMapping(input.attributeMapping),
    groupRoles: [...input.groupRoles],
  };
  if (input.type === 'saml') {
    if (!input.saml) throw AppError.validation([{ field: 'saml', message: 'is required for a SAML connection' }]);
    const saml: SamlConnectionSettings = {
      ...idpOf(input.saml, deps.production),
      allowIdpInitiated: input.saml.allowIdpInitiated ?? false,
      spKeyPair: spKeyPairOf(deps, id, input.saml),
    };
    return insertSsoConnection(deps.pool, { ...common, type: 'saml', saml });
  }
  if (!input.oidc) throw AppError.validation([{ field: 'oidc', message: 'is required for an OpenID Connect connection' }]);
  checkOidc(input.oidc, deps.production, true);
  const sealedClientSecret = deps.secretBox.seal(Buffer.from(input.oidc.clientSecret, 'utf8'), connectionSecretContext(id, 'oidc-client-secret'));
  return insertSsoConnection(deps.pool, {
    ...common,
    type: 'oidc',
    oidc: { issuer: input.oidc.issuer, clientId: input.oidc.clientId, sealedClientSecret },
  });
}

export async function listConnections(deps: SsoDeps, scope: ConnectionScope, context: RequestContext): Promise<SsoConnection[]> {
  await requireSsoManager(deps, scope, context);
  return listSsoConnections(deps.pool, scope.organizationId);
}

export async function getConnection(deps: SsoDeps, scope: ConnectionScope & { connectionId: string }, context: RequestContext): Promise<SsoConnection> {
  await requireSsoManager(deps, scope, context);
  const connection = await findOrganizationSsoConnection(deps.pool, scope.organizationId, scope.connectionId);
  if (!connection) throw new AppError('sso:connection_not_found');
  return connection;
}

export async function updateConnection(deps: SsoDeps, input: UpdateConnectionInput, context: RequestContext): Promise<SsoConnection> {
  const current = await getConnection(deps, input, context);
  const problems = checkCommon(input);
  if (problems.length > 0) throw AppError.validation(problems);
  const common = {
    id: current.id,
    organizationId: current.organizationId,
    defaultRole: input.defaultRole ?? current.defaultRole,
    attributeMapping: input.attributeMapping ? compactMapping(input.attributeMapping) : current.attributeMapping,
    groupRoles: input.groupRoles ? [...input.groupRoles] : current.groupRoles,
  };
  let changed: SsoConnection | undefined;
  if (current.type === 'saml') {
    if (input.oidc) throw AppError.validation([{ field: 'oidc', message: 'does not apply to a SAML connection' }]);
    const saml = input.saml;
    const replacement = saml && spKeyPairOf(deps, current.id, saml);
    const settings: SamlConnectionSettings = {
      ...(saml && replacesIdp(saml) ? idpOf(saml, deps.production) : current.saml),
      allowIdpInitiated: saml?.allowIdpInitiated ?? current.saml.allowIdpInitiated,
      spKeyPair: saml?.dropSpKeyPair ? undefined : (replacement ?? current.saml.spKeyPair),
    };
    changed = await replaceSsoConnection(deps.pool, { ...common, type: 'saml', saml: settings });
  } else {
    if (input.saml) throw AppError.validation([{ field: 'saml', message: 'does not apply to an OpenID Connect connection' }]);
    // Empty fields keep what the connection has: a new secret alone is a rotation.
    const oidc = {
      issuer: input.oidc?.issuer || current.oidc.issuer,
      clientId: input.oidc?.clientId || current.oidc.clientId,
      clientSecret: input.oidc?.clientSecret ?? '',
    };
    checkOidc(oidc, deps.production, false);
    const sealedClientSecret =
      oidc.clientSecret !== ''
        ? deps.secretBox.seal(Buffer.from(oidc.clientSecret, 'utf8'), connectionSecretContext(current.id, 'oidc-client-secret'))
        : current.oidc.sealedClientSecret;
    changed = await replaceSsoConnection(deps.pool, {
      ...common,
      type: 'oidc',
      oidc: { issuer: oidc.issuer, clientId: oidc.clientId, sealedClientSecret },
    });
  }
  // Deleted between the read and the write.
  if (!changed) throw new AppError('sso:connection_not_found');
  return changed;
}

/**
 * Removes a connection and its outside subjects. identity first forgets it
 * as a way in of the accounts that used it (DropSsoConnection, idempotent),
 * so that a failure in between leaves a connection that a repeated DELETE
 * still finds, never a way in that no longer exists.
 */
export async function deleteConnection(deps: SsoDeps, scope: ConnectionScope & { connectionId: string }, context: RequestContext): Promise<void> {
  const connection = await getConnection(deps, scope, context);
  await deps.identity.dropSsoConnection({ organizationId: connection.organizationId, connectionId: connection.id }, context);
  if (!(await deleteSsoConnection(deps.pool, scope.organizationId, scope.connectionId))) throw new AppError('sso:connection_not_found');
}

/**
 * A deleted organisation's connections go, each as deleteConnection does
 * (identity's ledger first, then the row and its subjects). Only once
 * identity no longer has the organisation: the org.deleted event that
 * causes this is not trusted on its own. Needs no SSO settings, so that a
 * connection made while SSO was configured still goes after it is off.
 */
export async function deleteOrganizationConnections(
  deps: Pick<SsoDeps, 'pool' | 'identity'>,
  organizationId: string,
  context: RequestContext,
): Promise<{ removed: number; organizationExists: boolean }> {
  const exists = await deps.identity.findSsoOrganization({ email: '', organizationSlug: '', organizationId }, context).then(
    () => true,
    (error: unknown) => {
      if (error instanceof AppError && error.code === 'org:not_found') return false;
      throw error;
    },
  );
  if (exists) return { removed: 0, organizationExists: true };
  let removed = 0;
  for (const connection of await listSsoConnections(deps.pool, organizationId)) {
    await deps.identity.dropSsoConnection({ organizationId, connectionId: connection.id }, context);
    if (await deleteSsoConnection(deps.pool, organizationId, connection.id)) removed += 1;
  }
  return { removed, organizationExists: false };
}

/** The SP's decryption key of a SAML connection, when it has a key pair. */
export function spPrivateKeyPem(deps: SsoDeps, connection: SsoConnection & { type: 'saml' }): string | undefined {
  const pair = connection.saml.spKeyPair;
  return pair ? deps.secretBox.open(pair.sealedKey, connectionSecretContext(connection.id, 'saml-sp-key')).toString('utf8') : undefined;
}

/** The IdP's certificates as PEM, for the signature checks. */
export function idpCertificatePems(connection: SsoConnection & { type: 'saml' }): string[] {
  return connection.saml.idpCertificates.map(certificatePem);
}
