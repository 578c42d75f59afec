import { readFileSync } from 'node:fs';
import { Client, errors } from '@opensearch-project/opensearch';
import { AppError } from '@latchkey/errors';
import type { SearchEngineSettings } from './search-engine-settings';

export type OpenSearchClient = Client;

/**
 * One post in the OpenSearch index, its id the post id. The jobs worker
 * writes it (services/jobs/src/opensearch-post-index.ts); posts queries it
 * (services/posts/src/opensearch-post-search.ts). A tombstone (`deleted`) keeps
 * late index jobs of a deleted post from writing it back, as the
 * PostgreSQL index's tombstones do.
 */
export interface PostDocument {
  readonly post_id: string;
  readonly author_id: string | null;
  readonly title: string;
  readonly content: string;
  /** The post version the document reflects. */
  readonly version: number;
  readonly deleted: boolean;
  /** ISO 8601; the tombstone purge reads it. */
  readonly updated_at: string;
}

/**
 * The title and content are analysed in English (stemming, stop words), as
 * the PostgreSQL index does with its `english` configuration; the title
 * counts twice (OPENSEARCH_TITLE_BOOST) as weight A counts above B there.
 */
export const postIndexMapping = {
  settings: { index: { number_of_shards: 1 } },
  mappings: {
    dynamic: 'strict',
    properties: {
      post_id: { type: 'keyword' },
      author_id: { type: 'keyword' },
      title: { type: 'text', analyzer: 'english' },
      content: { type: 'text', analyzer: 'english' },
      version: { type: 'long' },
      deleted: { type: 'boolean' },
      updated_at: { type: 'date' },
    },
  },
} as const;

/** How much a word of the title counts over one of the content. */
export const OPENSEARCH_TITLE_BOOST = 2;
/** The fields a search matches, the title boosted. */
export const searchedFields = [`title^${OPENSEARCH_TITLE_BOOST}`, 'content'];

/**
 * The largest external version OpenSearch accepts that JSON carries exactly.
 * A tombstone takes it, so that no index job, whatever its version, can
 * replace the tombstone before it is purged.
 */
export const TOMBSTONE_VERSION = Number.MAX_SAFE_INTEGER;

/** A client of the configured cluster. Requests are not retried here: the callers retry whole jobs or answer 503. */
export function createOpenSearchClient(
  settings: Pick<SearchEngineSettings, 'OPENSEARCH_URL' | 'OPENSEARCH_USERNAME' | 'OPENSEARCH_PASSWORD' | 'OPENSEARCH_CA_FILE'>,
  options: { readonly requestTimeoutMs: number },
): OpenSearchClient {
  if (!settings.OPENSEARCH_URL) throw new Error('OPENSEARCH_URL is not set');
  return new Client({
    node: settings.OPENSEARCH_URL,
    requestTimeout: options.requestTimeoutMs,
    maxRetries: 0,
    ...(settings.OPENSEARCH_USERNAME && settings.OPENSEARCH_PASSWORD
      ? { auth: { username: settings.OPENSEARCH_USERNAME, password: settings.OPENSEARCH_PASSWORD } }
      : {}),
    ...(settings.OPENSEARCH_CA_FILE ? { ssl: { ca: readFileSync(settings.OPENSEARCH_CA_FILE) } } : {}),
  });
}

/** Whether the cluster answered with `status` (404: no such document or index; 409: a version conflict). */
export function isOpenSearchStatus(error: unknown, status: number): boolean {
  return error instanceof errors.ResponseError && error.statusCode === status;
}

/**
 * Any other failure of a request to the cluster, as the outage it is to the
 * caller: `service:unavailable` (a 503, or a job that is retried), with the
 * cluster's error kept as the cause for the log.
 */
export function openSearchUnavailable(error: unknown, operation: string): AppError {
  return new AppError('service:unavailable', `The search engine could not ${operation}.`, { cause: error });
}
