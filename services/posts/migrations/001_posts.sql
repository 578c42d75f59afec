-- Handles of authors as the gateway passed them on post create. Posts never
-- reads identity's tables (docs/architecture.md), so it keeps what it shows.
CREATE TABLE authors (
  id uuid PRIMARY KEY,
  handle text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Post metadata. The content is in the object store under storage_key
-- (`posts/{id}`), never here.
CREATE TABLE posts (
  -- UUID version 7: time-ordered, so `ORDER BY id DESC` is newest first.
  id uuid PRIMARY KEY,
  author_id uuid NOT NULL REFERENCES authors (id),
  title text NOT NULL,
  storage_key text NOT NULL,
  -- 1 at create, +1 per edit. Index and delete jobs carry it, so that the
  -- worker can tell an older job from a newer one.
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- char_length counts code points, as the API's rule does.
  CONSTRAINT posts_title_length CHECK (char_length(title) BETWEEN 1 AND 200),
  CONSTRAINT posts_version_positive CHECK (version > 0)
);

-- The author filter of ListPosts and the account-deletion cascade.
CREATE INDEX posts_author_id_id_idx ON posts (author_id, id DESC);

-- What users did to posts. Rows outlive the post they name (no foreign key):
-- a `post:delete` entry points at a post that is gone.
CREATE TABLE action_logs (
  id uuid PRIMARY KEY,
  actor_id uuid NOT NULL,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT action_logs_action_known CHECK (action IN ('post:create', 'post:edit', 'post:delete')),
  CONSTRAINT action_logs_resource_type_known CHECK (resource_type = 'post')
);

CREATE INDEX action_logs_actor_id_id_idx ON action_logs (actor_id, id DESC);
