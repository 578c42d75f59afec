-- WebAuthn credentials (docs/api.md, "Passkeys"). Challenges of ceremonies in
-- progress live in Redis, not here: they are short-lived and single-use.
CREATE TABLE passkeys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The user's id in identity; no foreign key, since each service owns its schema.
  user_id uuid NOT NULL,
  -- The credential id the authenticator chose (at most 1023 bytes, WebAuthn
  -- Level 3). Unique across accounts: one authenticator key signs in one account.
  credential_id bytea NOT NULL UNIQUE,
  -- The COSE_Key public key, exactly as the authenticator sent it.
  public_key bytea NOT NULL,
  -- The signature counter last seen; 0 for authenticators that keep none.
  sign_count bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  -- The authenticator model, all zeros when the attestation (none) does not say.
  aaguid uuid NOT NULL,
  backup_eligible boolean NOT NULL,
  backed_up boolean NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  CONSTRAINT passkeys_credential_id_length CHECK (octet_length(credential_id) BETWEEN 1 AND 1023),
  CONSTRAINT passkeys_sign_count_range CHECK (sign_count BETWEEN 0 AND 4294967295),
  CONSTRAINT passkeys_name_length CHECK (char_length(name) BETWEEN 1 AND 64)
);

CREATE INDEX passkeys_user_id_idx ON passkeys (user_id, created_at);
