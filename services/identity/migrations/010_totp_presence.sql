-- What identity knows of an account's TOTP without asking the totp service
-- (docs/architecture.md, "Second factor presence"), so that a sign-in or an
-- account view of an account without TOTP makes no call to it. The totp
-- service marks an account before it turns TOTP on and unmarks it after it
-- turned it off, naming the mark it was given: an unmark from before a later
-- mark changes nothing, so "not possible" is never wrong.
ALTER TABLE identity.users
  ADD COLUMN totp_possible boolean NOT NULL DEFAULT false,
  ADD COLUMN totp_mark bigint NOT NULL DEFAULT 0;

-- One row once the totp service has marked every TOTP it held before this
-- table existed. Until then an unmarked account is "not known", not "off".
CREATE TABLE identity.totp_census (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  completed_at timestamptz NOT NULL DEFAULT now()
);
