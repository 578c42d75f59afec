-- The mark identity gave when this TOTP was turned on (identity.v1
-- RecordTotpPossible; docs/architecture.md, "Second factor presence"),
-- named again when it is turned off. 0: turned on before the marks existed,
-- not yet marked (the census at start marks it); -1: its account was gone
-- when the census came to it.
--
-- No default once the existing rows have theirs: a totp unit of an earlier
-- release, still running during a rolling upgrade, would turn TOTP on
-- without telling identity; its INSERT now fails instead.
ALTER TABLE totp_credentials ADD COLUMN presence_mark bigint NOT NULL DEFAULT 0;
ALTER TABLE totp_credentials ALTER COLUMN presence_mark DROP DEFAULT;
