-- admin.v1's organisation changes are audited like its account changes
-- (docs/operations.md, "Audit"): such an entry names the organisation, and
-- the account it added or removed, if any. No foreign key: the entry of a
-- deletion outlives the organisation.
ALTER TABLE admin_audit_log ADD COLUMN organization_id uuid;
