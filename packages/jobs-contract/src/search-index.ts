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
  /** Each word's strongest posts (champion lists), kept from the documents by a trigger of the worker's migrations. */
  postTermChampions: 'search.post_term_champions',
  /** English stemming: "running" finds "run"; stop words are ignored. */
  textSearchConfig: 'english',
} as const;
