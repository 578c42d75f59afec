import { z } from 'zod';
import { checkSearchEngineSettings, searchEngineVariables } from './search-engine-settings';

const schema = z.object(searchEngineVariables).superRefine(checkSearchEngineSettings);

/** The variables a parse refused, by name. */
function refused(environment: Record<string, string>): string[] {
  const result = schema.safeParse(environment);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

test('searchEngineVariables: PostgreSQL by default, needing nothing more', () => {
  expect(schema.parse({})).toEqual({ SEARCH_ENGINE: 'postgres', OPENSEARCH_INDEX: 'latchkey-posts' });
});

test('checkSearchEngineSettings() requires OPENSEARCH_URL with SEARCH_ENGINE=opensearch, and an http(s) one', () => {
  expect(refused({ SEARCH_ENGINE: 'opensearch' })).toEqual(['OPENSEARCH_URL']);
  expect(refused({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_URL: 'ftp://search.internal' })).toEqual(['OPENSEARCH_URL']);
  expect(schema.parse({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_URL: 'https://search.internal:9200' })).toMatchObject({
    SEARCH_ENGINE: 'opensearch',
    OPENSEARCH_URL: 'https://search.internal:9200',
  });
  expect(refused({ SEARCH_ENGINE: 'elasticsearch' })).toEqual(['SEARCH_ENGINE']);
});

test('checkSearchEngineSettings() takes the basic-authentication pair together or not at all', () => {
  const opensearch = { SEARCH_ENGINE: 'opensearch', OPENSEARCH_URL: 'https://search.internal:9200' };
  expect(refused({ ...opensearch, OPENSEARCH_USERNAME: 'latchkey' })).toEqual(['OPENSEARCH_PASSWORD']);
  expect(refused({ ...opensearch, OPENSEARCH_PASSWORD: 'secret' })).toEqual(['OPENSEARCH_PASSWORD']);
  expect(refused({ ...opensearch, OPENSEARCH_USERNAME: 'latchkey', OPENSEARCH_PASSWORD: 'secret' })).toEqual([]);
});

test('searchEngineVariables: an index name OpenSearch accepts, lower case', () => {
  expect(refused({ OPENSEARCH_INDEX: 'Posts' })).toEqual(['OPENSEARCH_INDEX']);
  expect(refused({ OPENSEARCH_INDEX: '_posts' })).toEqual(['OPENSEARCH_INDEX']);
  expect(refused({ OPENSEARCH_INDEX: 'acme.posts-v2' })).toEqual([]);
});
