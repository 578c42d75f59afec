-- Enterprise SSO (docs/sso.md, docs/decisions/0004-enterprise-sso.md): an
-- organisation's connections to its own identity provider. Organisations
-- belong to identity and are referenced by id only; identity's deletion of
-- an organisation drops its connections through sso.v1.
CREATE TABLE oauth.sso_connections (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  type text NOT NULL,
  -- The role of new members when no group of group_roles applies.
  default_role text NOT NULL,
  -- {"email", "name", "groups"}: the attribute or claim names; absent keys take the defaults.
  attribute_mapping jsonb NOT NULL DEFAULT '{}',
  -- [{"group", "role"}], first match wins.
  group_roles jsonb NOT NULL DEFAULT '[]',

  -- SAML: the identity provider ...
  saml_idp_entity_id text,
  saml_idp_sso_url text,
  -- ... one or two signing certificates (base64 DER), two during a rollover.
  saml_idp_certificates text[],
  saml_allow_idp_initiated boolean NOT NULL DEFAULT false,
  -- The service provider's key pair for encrypted assertions, when set:
  -- the certificate is public (in the SP metadata), the key sealed with
  -- SSO_ENCRYPTION_KEY (packages/secret-box) under the connection's id.
  saml_sp_certificate text,
  saml_sp_key_sealed bytea,
  saml_sp_key_id text,

  -- OpenID Connect: the issuer and the client, its secret sealed as above.
  oidc_issuer text,
  oidc_client_id text,
  oidc_client_secret_sealed bytea,
  oidc_client_secret_key_id text,

  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),

  CONSTRAINT sso_connections_type_known CHECK (type IN ('saml', 'oidc')),
  CONSTRAINT sso_connections_saml_complete CHECK (
    type <> 'saml' OR (
      saml_idp_entity_id IS NOT NULL AND saml_idp_sso_url IS NOT NULL
      AND cardinality(saml_idp_certificates) BETWEEN 1 AND 2
    )
  ),
  CONSTRAINT sso_connections_sp_key_whole CHECK (
    (saml_sp_certificate IS NULL) = (saml_sp_key_sealed IS NULL) AND (saml_sp_key_sealed IS NULL) = (saml_sp_key_id IS NULL)
  ),
  CONSTRAINT sso_connections_oidc_complete CHECK (
    type <> 'oidc' OR (
      oidc_issuer IS NOT NULL AND oidc_client_id IS NOT NULL
      AND oidc_client_secret_sealed IS NOT NULL AND oidc_client_secret_key_id IS NOT NULL
    )
  )
);

CREATE INDEX sso_connections_organization ON oauth.sso_connections (organization_id, created_at);

-- The outside subject (SAML NameID, OpenID `sub`) a connection signed an
-- account in as, like user_oauth_connections for Google and GitHub: the
-- subject, not the email the identity provider may change, identifies the
-- person on the next sign-in.
CREATE TABLE oauth.sso_subjects (
  connection_id uuid NOT NULL REFERENCES oauth.sso_connections (id) ON DELETE CASCADE,
  subject text NOT NULL,
  user_id uuid NOT NULL,
  -- The email the identity provider asserted when the link was made, lower-cased.
  email text NOT NULL,
  linked_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sso_subjects_pkey PRIMARY KEY (connection_id, subject),
  CONSTRAINT sso_subjects_email_lower CHECK (email = lower(email))
);

CREATE INDEX sso_subjects_user ON oauth.sso_subjects (user_id);
