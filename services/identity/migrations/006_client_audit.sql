-- The audit log records admin.v1's changes to OpenID clients too
-- (docs/oidc.md, "Clients"): an entry names an account or a client.
ALTER TABLE admin_audit_log ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE admin_audit_log ADD COLUMN client_id text;
ALTER TABLE admin_audit_log ADD CONSTRAINT admin_audit_log_subject CHECK (user_id IS NOT NULL OR client_id IS NOT NULL);
