-- SCIM 2.0 provisioning (docs/scim.md): an organisation's bearer tokens,
-- the SCIM attributes of the accounts it provisions, its groups and their
-- members, and memberships an identity provider suspends.

-- A suspended membership is kept (its role, source, groups) but counts as no
-- membership anywhere: permissions, the active organisation, token claims.
ALTER TABLE identity.org_memberships ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended'));

-- Bearer tokens of an organisation's identity provider, kept as the
-- SHA-256 of the token only (shown once at creation).
CREATE TABLE identity.scim_tokens (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  description text NOT NULL CHECK (char_length(description) <= 200),
  created_by uuid REFERENCES identity.users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  last_used_at timestamptz
);
CREATE INDEX scim_tokens_of_organization ON identity.scim_tokens (organization_id, created_at);

-- What the identity provider said of an account it provisioned in an
-- organisation; the SCIM id of the User is the account id. A row exists
-- while the account is a member provisioned or linked by SCIM: it goes with
-- the membership however that ends (an admin's removal, the account's
-- deletion), so that the directory an IdP reads is the members it has.
CREATE TABLE identity.scim_users (
  organization_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
  external_id text CHECK (char_length(external_id) <= 500),
  given_name text NOT NULL DEFAULT '' CHECK (char_length(given_name) <= 200),
  family_name text NOT NULL DEFAULT '' CHECK (char_length(family_name) <= 200),
  display_name text NOT NULL DEFAULT '' CHECK (char_length(display_name) <= 200),
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  PRIMARY KEY (organization_id, user_id),
  -- Deferred: provisioning writes the record and then the membership, in one transaction.
  FOREIGN KEY (organization_id, user_id) REFERENCES identity.org_memberships (organization_id, user_id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
-- Listing pages (startIndex/count) walk this index in the order of provisioning.
CREATE INDEX scim_users_listing ON identity.scim_users (organization_id, created_at, user_id);
CREATE UNIQUE INDEX scim_users_external_id ON identity.scim_users (organization_id, external_id) WHERE external_id IS NOT NULL;

-- An identity provider's groups; one mapped to a role gives it to its members.
CREATE TABLE identity.scim_groups (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  display_name text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 200),
  external_id text CHECK (char_length(external_id) <= 500),
  role text,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (organization_id, display_name),
  -- A deleted role unmaps its groups.
  FOREIGN KEY (organization_id, role) REFERENCES identity.org_roles (organization_id, name) ON DELETE SET NULL (role)
);
CREATE INDEX scim_groups_listing ON identity.scim_groups (organization_id, created_at, id);

CREATE TABLE identity.scim_group_members (
  group_id uuid NOT NULL REFERENCES identity.scim_groups (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL,
  user_id uuid NOT NULL,
  PRIMARY KEY (group_id, user_id),
  -- Only accounts the organisation provisioned; they leave their groups with their SCIM record.
  FOREIGN KEY (organization_id, user_id) REFERENCES identity.scim_users (organization_id, user_id) ON DELETE CASCADE
);
CREATE INDEX scim_group_members_of_user ON identity.scim_group_members (organization_id, user_id);
