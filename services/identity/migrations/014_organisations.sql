-- docs/organisations.md: organisations, their roles, members and
-- invitations, beside the accounts they are made of
-- (docs/decisions/0003-organisations-in-identity.md).

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every role a membership may hold, built-in ones included, so that a
-- membership's role is a foreign key: a custom role held by a member cannot
-- be deleted. The built-in roles' permissions are the code's
-- (services/identity/src/orgs/permissions.ts), so a release may change them.
CREATE TABLE org_roles (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_-]{0,47}$'),
  built_in boolean NOT NULL DEFAULT false,
  permissions text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, name),
  CONSTRAINT org_roles_built_in_names CHECK (built_in = (name IN ('owner', 'admin', 'member')))
);

CREATE TABLE org_memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL,
  source text NOT NULL CHECK (source IN ('creator', 'invitation', 'sso', 'scim', 'admin')),
  -- Milliseconds, as the keyset pages' cursors carry them.
  joined_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()) CHECK (joined_at = date_trunc('milliseconds', joined_at)),
  PRIMARY KEY (organization_id, user_id),
  FOREIGN KEY (organization_id, role) REFERENCES org_roles (organization_id, name)
);
-- A user's organisations; an organisation's members in the order they joined (keyset pages).
CREATE INDEX org_memberships_of_user ON org_memberships (user_id, joined_at);
CREATE INDEX org_memberships_listing ON org_memberships (organization_id, joined_at, user_id);
CREATE INDEX org_memberships_owners ON org_memberships (organization_id) WHERE role = 'owner';

-- An organisation always keeps an owner. Every change that may take the
-- last one away locks the organisation's row first and counts (the rule's
-- owner is services/identity/src/orgs/members.ts); this trigger, run
-- when the transaction commits, refuses any that did not, so that no path
-- to zero owners exists, whatever code runs. An organisation deleted in the
-- same transaction keeps nothing and needs no owner.
CREATE FUNCTION org_keeps_an_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM identity.organizations WHERE id = OLD.organization_id)
     AND NOT EXISTS (SELECT FROM identity.org_memberships WHERE organization_id = OLD.organization_id AND role = 'owner') THEN
    RAISE EXCEPTION 'organization % would have no owner', OLD.organization_id USING ERRCODE = 'LK001';
  END IF;
  RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER org_memberships_keep_an_owner
  AFTER UPDATE OR DELETE ON org_memberships
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (OLD.role = 'owner')
  EXECUTE FUNCTION org_keeps_an_owner();

-- Invitations by mail. The link's token is kept as its SHA-256 only. An
-- invitation is pending until it is accepted, revoked, or past expires_at.
-- It goes with the account that sent it, as memberships go with theirs.
CREATE TABLE org_invitations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (email = lower(email)),
  role text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  invited_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()) CHECK (created_at = date_trunc('milliseconds', created_at)),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at timestamptz,
  CHECK (accepted_at IS NULL OR revoked_at IS NULL)
);
CREATE INDEX org_invitations_listing ON org_invitations (organization_id, created_at DESC, id DESC);
CREATE INDEX org_invitations_open ON org_invitations (organization_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
