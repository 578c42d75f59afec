-- Enterprise SSO's half in identity (docs/decisions/0004-enterprise-sso.md):
-- the domains an organisation claims and proves by DNS, whether it enforces
-- SSO for the accounts of its verified domains, and SSO connections as a
-- way in of the credential ledger.

-- A domain claimed by an organisation: pending until its TXT record
-- `_latchkey-challenge.{domain}` is found holding verification_token, then
-- verified. Several organisations may claim a domain; one verifies it.
CREATE TABLE identity.org_domains (
  organization_id uuid NOT NULL REFERENCES identity.organizations (id) ON DELETE CASCADE,
  -- Normalised: lower case, punycode, no trailing dot.
  domain text NOT NULL CHECK (domain = lower(domain) AND domain !~ '\.$' AND char_length(domain) BETWEEN 3 AND 253),
  -- Not a secret: it is published in DNS. Random, so that nobody proves a
  -- domain with a record made for another organisation.
  verification_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  verified_at timestamptz,
  PRIMARY KEY (organization_id, domain)
);
-- A domain is verified by at most one organisation; the sign-ins' check of
-- enforcement is one look-up here by the email's domain.
CREATE UNIQUE INDEX org_domains_verified ON identity.org_domains (domain) WHERE verified_at IS NOT NULL;

ALTER TABLE identity.organizations ADD COLUMN sso_enforced boolean NOT NULL DEFAULT false;

-- An SSO connection (its id as the reference) is a first factor of the
-- accounts that signed in through it. Identity writes these rows itself.
ALTER TABLE identity.credentials DROP CONSTRAINT credentials_kind_check;
ALTER TABLE identity.credentials ADD CONSTRAINT credentials_kind_check CHECK (kind IN ('password', 'passkey', 'provider', 'totp', 'sso'));
-- DropSsoConnection finds a connection's rows without scanning every account.
CREATE INDEX credentials_sso_connection ON identity.credentials (reference) WHERE kind = 'sso';
