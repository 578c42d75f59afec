-- The purge of accounts never verified (PurgeUnverifiedUsers) reads them by
-- age; verified accounts, nearly all of them, stay out of the index.
CREATE INDEX users_unverified_created_at_idx ON users (created_at) WHERE email_verified_at IS NULL;
