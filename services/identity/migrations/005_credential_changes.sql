-- When the password in force was set. An automatic provider link into an
-- account whose password predates the verification of its email drops that
-- password (docs/security.md, "Pre-account takeover"). Accounts registered
-- before this column count from their creation: a password changed since
-- then is taken for the first one, which errs towards dropping it.
ALTER TABLE users ADD COLUMN password_set_at timestamptz;
UPDATE users SET password_set_at = created_at WHERE password_hash IS NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_password_set_at_with_password
  CHECK ((password_hash IS NULL) = (password_set_at IS NULL));

-- The token mailed to the old address with an email-change request, which
-- withdraws the change.
ALTER TYPE token_purpose ADD VALUE 'cancel_email_change';
