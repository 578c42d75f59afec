export { searchEngineVariables, checkSearchEngineSettings, type SearchEngineSettings } from './search-engine-settings';
export {
  createOpenSearchClient,
  isOpenSearchStatus,
  openSearchUnavailable,
  postIndexMapping,
  searchedFields,
  OPENSEARCH_TITLE_BOOST,
  TOMBSTONE_VERSION,
  type OpenSearchClient,
  type PostDocument,
} from './opensearch-index';
