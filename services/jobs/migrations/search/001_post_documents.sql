-- The full-text index of posts (docs/architecture.md, "Posts, content and search"). Only the
-- jobs worker writes it; the posts service reads it for SearchPosts, joined
-- with its own posts table.
CREATE TABLE post_documents (
  post_id uuid PRIMARY KEY,
  -- NULL in tombstones.
  author_id uuid,
  title text NOT NULL,
  -- Title (weight A) and content (weight B), built with the text search
  -- configuration named in @latchkey/jobs-contract (searchIndex).
  document tsvector NOT NULL,
  -- The post version this row reflects. An index job applies only when it
  -- carries a newer version, so redelivered and reordered jobs cannot put
  -- back an older text.
  version bigint NOT NULL,
  -- A tombstone: the post was deleted. It keeps index jobs that arrive after
  -- the delete from resurrecting the post, and is purged after a day.
  deleted boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX post_documents_document_idx ON post_documents USING GIN (document);
-- The tombstone purge.
CREATE INDEX post_documents_tombstones_idx ON post_documents (updated_at) WHERE deleted;
