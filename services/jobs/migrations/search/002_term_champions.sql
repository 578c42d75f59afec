-- Champion lists (docs/performance.md, "Search"): for each word, the posts
-- in which it weighs most, kept beside the GIN index. Ranking every match of
-- a common word would read every document that has it, so a search ranks
-- the newest SEARCH_RANK_CANDIDATES matches; the champions of its words are
-- ranked with them, so that an old post that is mostly about the query's
-- words still reaches the first page.

-- A word's share of a document: its occurrences weighted as ts_rank weighs
-- them by default (A 1.0, B 0.4, C 0.2, D 0.1), over the document's total.
-- Only a document's strongest words are kept: a post is a champion of what
-- it is about, not of every word it mentions once, and the table stays a
-- few rows per post.
CREATE FUNCTION term_champion_entries(document tsvector)
RETURNS TABLE (lexeme text, impact real)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH weighed AS (
    SELECT entry.lexeme,
           sum(CASE weight WHEN 'A' THEN 1.0 WHEN 'B' THEN 0.4 WHEN 'C' THEN 0.2 ELSE 0.1 END) AS mass
      FROM unnest(document) AS entry
     CROSS JOIN LATERAL unnest(entry.weights) AS weight
     GROUP BY entry.lexeme
  )
  SELECT weighed.lexeme, (weighed.mass / sum(weighed.mass) OVER ())::real
    FROM weighed
   ORDER BY weighed.mass DESC, weighed.lexeme
   LIMIT 12
$$;

CREATE TABLE post_term_champions (
  lexeme text NOT NULL,
  impact real NOT NULL,
  post_id uuid NOT NULL REFERENCES post_documents (post_id) ON DELETE CASCADE,
  PRIMARY KEY (post_id, lexeme)
);

-- A word's champions, strongest first: a search reads the head of each of its words' lists.
CREATE INDEX post_term_champions_strongest_idx ON post_term_champions (lexeme, impact DESC, post_id DESC);

-- In the transaction that writes the document, so that the lists never
-- disagree with it; a tombstone is no one's champion.
-- The writer's search path need not name this schema: the function keeps the migration's.
CREATE FUNCTION keep_post_term_champions() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM post_term_champions WHERE post_id = NEW.post_id;
  IF NOT NEW.deleted THEN
    INSERT INTO post_term_champions (post_id, lexeme, impact)
    SELECT NEW.post_id, entry.lexeme, entry.impact FROM term_champion_entries(NEW.document) AS entry;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER post_documents_champions
AFTER INSERT OR UPDATE OF document, deleted ON post_documents
FOR EACH ROW EXECUTE FUNCTION keep_post_term_champions();

INSERT INTO post_term_champions (post_id, lexeme, impact)
SELECT d.post_id, entry.lexeme, entry.impact
  FROM post_documents d
 CROSS JOIN LATERAL term_champion_entries(d.document) AS entry
 WHERE NOT d.deleted;
