-- The audit log records admin.v1's changes to OpenID clients too
-- (docs/oidc.md, "Clients"): such an entry names the client, and no account.
ALTER TABLE admin_audit_log ADD COLUMN client_id text;
