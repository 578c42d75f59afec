import type pg from 'pg';
import type { SealedSecret } from '@latchkey/secret-box';

/** Where a person's details are in the provider's answer; absent names take the defaults (docs/sso.md). */
export interface AttributeMapping {
  readonly email?: string | undefined;
  readonly name?: string | undefined;
  readonly groups?: string | undefined;
}

export interface GroupRole {
  readonly group: string;
  readonly role: string;
}

export interface SamlConnectionSettings {
  readonly idpEntityId: string;
  readonly idpSsoUrl: string;
  /** base64 DER, one or two. */
  readonly idpCertificates: readonly string[];
  readonly allowIdpInitiated: boolean;
  /** The service provider's key pair for encrypted assertions. */
  readonly spKeyPair?: { readonly certificate: string; readonly sealedKey: SealedSecret } | undefined;
}

export interface OidcConnectionSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly sealedClientSecret: SealedSecret;
}

interface ConnectionCommon {
  readonly id: string;
  readonly organizationId: string;
  readonly defaultRole: string;
  readonly attributeMapping: AttributeMapping;
  readonly groupRoles: readonly GroupRole[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A row of oauth.sso_connections. */
export type SsoConnection =
  | (ConnectionCommon & { readonly type: 'saml'; readonly saml: SamlConnectionSettings })
  | (ConnectionCommon & { readonly type: 'oidc'; readonly oidc: OidcConnectionSettings });

/** A connection as written: the times are the database's. */
export type SsoConnectionFields =
  | Omit<SsoConnection & { readonly type: 'saml' }, 'createdAt' | 'updatedAt'>
  | Omit<SsoConnection & { readonly type: 'oidc' }, 'createdAt' | 'updatedAt'>;

type Queryable = pg.ClientBase | pg.Pool;

interface ConnectionRow {
  id: string;
  organization_id: string;
  type: 'saml' | 'oidc';
  default_role: string;
  attribute_mapping: AttributeMapping;
  group_roles: GroupRole[];
  saml_idp_entity_id: string | null;
  saml_idp_sso_url: string | null;
  saml_idp_certificates: string[] | null;
  saml_allow_idp_initiated: boolean;
  saml_sp_certificate: string | null;
  saml_sp_key_sealed: Buffer | null;
  saml_sp_key_id: string | null;
  oidc_issuer: string | null;
  oidc_client_id: string | null;
  oidc_client_secret_sealed: Buffer | null;
  oidc_client_secret_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

function connectionOf(row: ConnectionRow): SsoConnection {
  const common: ConnectionCommon = {
    id: row.id,
    organizationId: row.organization_id,
    defaultRole: row.default_role,
    attributeMapping: row.attribute_mapping,
    groupRoles: row.group_roles,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.type === 'oidc') {
    // The table's CHECK constraints make these present for an oidc row.
    return {
      ...common,
      type: 'oidc',
      oidc: {
        issuer: row.oidc_issuer ?? '',
        clientId: row.oidc_client_id ?? '',
        sealedClientSecret: { keyId: row.oidc_client_secret_key_id ?? '', ciphertext: row.oidc_client_secret_sealed ?? Buffer.alloc(0) },
      },
    };
  }
  const spKeyPair =
    row.saml_sp_certificate !== null && row.saml_sp_key_sealed !== null && row.saml_sp_key_id !== null
      ? { certificate: row.saml_sp_certificate, sealedKey: { keyId: row.saml_sp_key_id, ciphertext: row.saml_sp_key_sealed } }
      : undefined;
  return {
    ...common,
    type: 'saml',
    saml: {
      idpEntityId: row.saml_idp_entity_id ?? '',
      idpSsoUrl: row.saml_idp_sso_url ?? '',
      idpCertificates: row.saml_idp_certificates ?? [],
      allowIdpInitiated: row.saml_allow_idp_initiated,
      spKeyPair,
    },
  };
}

/** The columns of a connection, in the order of `valuesOf`. */
const WRITTEN_COLUMNS = [
  'organization_id',
  'type',
  'default_role',
  'attribute_mapping',
  'group_roles',
  'saml_idp_entity_id',
  'saml_idp_sso_url',
  'saml_idp_certificates',
  'saml_allow_idp_initiated',
  'saml_sp_certificate',
  'saml_sp_key_sealed',
  'saml_sp_key_id',
  'oidc_issuer',
  'oidc_client_id',
  'oidc_client_secret_sealed',
  'oidc_client_secret_key_id',
] as const;

function valuesOf(connection: SsoConnectionFields): unknown[] {
  const saml = connection.type === 'saml' ? connection.saml : undefined;
  const oidc = connection.type === 'oidc' ? connection.oidc : undefined;
  return [
    connection.organizationId,
    connection.type,
    connection.defaultRole,
    JSON.stringify(connection.attributeMapping),
    JSON.stringify(connection.groupRoles),
    saml?.idpEntityId ?? null,
    saml?.idpSsoUrl ?? null,
    saml ? [...saml.idpCertificates] : null,
    saml?.allowIdpInitiated ?? false,
    saml?.spKeyPair?.certificate ?? null,
    saml?.spKeyPair?.sealedKey.ciphertext ?? null,
    saml?.spKeyPair?.sealedKey.keyId ?? null,
    oidc?.issuer ?? null,
    oidc?.clientId ?? null,
    oidc?.sealedClientSecret.ciphertext ?? null,
    oidc?.sealedClientSecret.keyId ?? null,
  ];
}

export async function insertSsoConnection(db: Queryable, connection: SsoConnectionFields): Promise<SsoConnection> {
  const placeholders = WRITTEN_COLUMNS.map((_, index) => `$${index + 2}`).join(', ');
  const { rows } = await db.query<ConnectionRow>(
    `INSERT INTO oauth.sso_connections (id, ${WRITTEN_COLUMNS.join(', ')}) VALUES ($1, ${placeholders}) RETURNING *`,
    [connection.id, ...valuesOf(connection)],
  );
  return connectionOf(rows[0] as ConnectionRow);
}

/** Replaces every written column of a connection of that organisation; undefined when there is none. */
export async function replaceSsoConnection(db: Queryable, connection: SsoConnectionFields): Promise<SsoConnection | undefined> {
  const assignments = WRITTEN_COLUMNS.map((column, index) => `${column} = $${index + 2}`).join(', ');
  const { rows } = await db.query<ConnectionRow>(
    `UPDATE oauth.sso_connections SET ${assignments}, updated_at = now() WHERE id = $1 AND organization_id = $2 RETURNING *`,
    [connection.id, ...valuesOf(connection)],
  );
  return rows[0] ? connectionOf(rows[0]) : undefined;
}

/** A connection by id alone: the public routes (SP metadata, the ACS, the OpenID callback) know no organisation. */
export async function findSsoConnection(db: Queryable, id: string): Promise<SsoConnection | undefined> {
  const { rows } = await db.query<ConnectionRow>('SELECT * FROM oauth.sso_connections WHERE id = $1', [id]);
  return rows[0] ? connectionOf(rows[0]) : undefined;
}

/** A connection of that organisation; another organisation's is as unknown. */
export async function findOrganizationSsoConnection(db: Queryable, organizationId: string, id: string): Promise<SsoConnection | undefined> {
  const { rows } = await db.query<ConnectionRow>('SELECT * FROM oauth.sso_connections WHERE id = $1 AND organization_id = $2', [
    id,
    organizationId,
  ]);
  return rows[0] ? connectionOf(rows[0]) : undefined;
}

/** An organisation's connections, oldest first: sign-in goes through the first. */
export async function listSsoConnections(db: Queryable, organizationId: string): Promise<SsoConnection[]> {
  const { rows } = await db.query<ConnectionRow>('SELECT * FROM oauth.sso_connections WHERE organization_id = $1 ORDER BY created_at, id', [
    organizationId,
  ]);
  return rows.map(connectionOf);
}

export async function deleteSsoConnection(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM oauth.sso_connections WHERE id = $1 AND organization_id = $2', [id, organizationId]);
  return (rowCount ?? 0) > 0;
}


/** Links an outside subject to the account identity provisioned; a later sign-in of the same subject moves the link. */
export async function linkSsoSubject(db: Queryable, link: { connectionId: string; subject: string; userId: string; email: string }): Promise<void> {
  await db.query(
    `INSERT INTO oauth.sso_subjects (connection_id, subject, user_id, email) VALUES ($1, $2, $3, $4)
     ON CONFLICT (connection_id, subject) DO UPDATE SET user_id = EXCLUDED.user_id, email = EXCLUDED.email, linked_at = now()`,
    [link.connectionId, link.subject, link.userId, link.email],
  );
}

/** For account deletion: every subject linked to the account. */
export async function deleteSsoSubjectsOfUser(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM oauth.sso_subjects WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}
