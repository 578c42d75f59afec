-- Raised in the transaction of every password reset and change. Sessions
-- remember the epoch they were started under; a `sessions.revoked` job
-- queued with the change ends those of earlier epochs, even when the
-- gateway fails between the commit and ending them itself.
ALTER TABLE users ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;
