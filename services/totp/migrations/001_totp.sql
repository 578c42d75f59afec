-- The second factor of users who enabled TOTP. A row exists only while TOTP
-- is enabled: disabling deletes it (docs/api.md, "Second factor (TOTP)":
-- disable removes the secret). Pending setup secrets live in Redis, not here.
CREATE TABLE totp_credentials (
  -- The user's id in identity; no foreign key, since each service owns its schema.
  user_id uuid PRIMARY KEY,
  -- AES-256-GCM: IV (12 bytes) || tag (16 bytes) || ciphertext; never the secret in clear.
  secret_ciphertext bytea NOT NULL,
  -- Which TOTP encryption key sealed it, so that keys can rotate.
  key_id text NOT NULL,
  enabled_at timestamptz NOT NULL DEFAULT now(),
  -- The RFC 6238 time step last accepted: a code of this step or an earlier
  -- one is refused (replay guard). Moved forward only by a conditional UPDATE.
  last_used_step bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT totp_credentials_last_used_step_positive CHECK (last_used_step IS NULL OR last_used_step >= 0)
);

-- Single-use backup codes, stored only as HMAC-SHA256 under a key derived
-- from the TOTP encryption key. Using a code deletes its row.
CREATE TABLE backup_codes (
  user_id uuid NOT NULL REFERENCES totp_credentials (user_id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  -- The encryption key the HMAC key was derived from: tells operators when
  -- a previous key is no longer needed.
  key_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, code_hash)
);
