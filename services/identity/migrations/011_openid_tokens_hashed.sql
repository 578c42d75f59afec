-- docs/security.md, "What is stored hashed, sealed or plain": the OpenID
-- Provider's codes and tokens are kept as the SHA-256 of their value, hex,
-- in the key and nowhere else, and a device code's user code likewise
-- (services/identity/src/oidc/artifact-hashes.ts), so that a dump of this
-- table signs nobody in. Grants keep their ids: a grant id is no credential.

-- What has expired is of no use to anyone.
DELETE FROM oidc_artifacts WHERE expires_at < now();

-- The live ones are converted, so that no application has to sign in
-- again: a code or token presented after the upgrade is hashed and found,
-- and a used refresh token presented again is still known as used.
UPDATE oidc_artifacts
SET id = encode(sha256(convert_to(id, 'UTF8')), 'hex'),
    user_code = encode(sha256(convert_to(user_code, 'UTF8')), 'hex'),
    payload = payload - 'jti' - 'userCode'
WHERE kind <> 'Grant';

-- From now on the table refuses a code, token or user code in clear,
-- whoever writes it: an identity of the previous version during the
-- upgrade's rollout, or a mistake later.
ALTER TABLE oidc_artifacts
  ADD CONSTRAINT oidc_artifacts_value_hashed
    CHECK (kind = 'Grant' OR (id ~ '^[0-9a-f]{64}$' AND NOT payload ? 'jti' AND NOT payload ? 'userCode')),
  ADD CONSTRAINT oidc_artifacts_user_code_hashed
    CHECK (user_code IS NULL OR user_code ~ '^[0-9a-f]{64}$');

COMMENT ON COLUMN oidc_artifacts.id IS 'A grant''s id; for a code or token, the SHA-256 of its value, hex.';
COMMENT ON COLUMN oidc_artifacts.user_code IS 'A device code''s user code: its SHA-256, hex.';
