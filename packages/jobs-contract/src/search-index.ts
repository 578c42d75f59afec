/**
 * The full-text index of posts: schema `search`, written only by the jobs
 * worker (which owns its migrations) and read by the posts service for
 * SearchPosts. Writer and reader must build documents and queries with the
 * same text search configuration, or stemmed words would not match.
 */
export const searchIndex = {
  schema: 'search',
  /** Qualified, since neither unit has `search` on its search path. */
  postDocuments: 'search.post_documents',
  /** English stemming: "running" finds "run"; stop words are ignored. */
  textSearchConfig: 'english',
} as const;
