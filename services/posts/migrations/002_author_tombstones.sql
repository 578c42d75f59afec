-- An author whose account is being deleted, or was: DeleteUserPosts sets it
-- before it deletes anything, and CreatePost refuses such an author, so a
-- post created while the account goes cannot outlive the cleanup. The row
-- stays, with its handle blanked, as the tombstone of the account (ids are
-- never reused).
ALTER TABLE authors ADD COLUMN deleted_at timestamptz;
