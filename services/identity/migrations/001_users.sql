-- Accounts. Handles and emails are stored lower-cased so that uniqueness is
-- case-insensitive without citext.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  handle text NOT NULL,
  email text NOT NULL,
  -- NULL for accounts created through an OAuth provider that never set a password.
  password_hash text,
  email_verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_handle_key UNIQUE (handle),
  CONSTRAINT users_email_key UNIQUE (email),
  CONSTRAINT users_handle_lower CHECK (handle = lower(handle)),
  CONSTRAINT users_email_lower CHECK (email = lower(email))
);

CREATE TYPE token_purpose AS ENUM ('verify_email', 'reset_password', 'change_email');

-- Single-use tokens mailed to users. Only a SHA-256 of the token is kept:
-- a leaked table yields no usable link.
CREATE TABLE one_time_tokens (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose token_purpose NOT NULL,
  -- The address an email-change token moves the account to.
  new_email text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX one_time_tokens_user_purpose_idx ON one_time_tokens (user_id, purpose);
CREATE INDEX one_time_tokens_expires_at_idx ON one_time_tokens (expires_at);
