export {
  clientEntrySchema,
  clientEntriesSchema,
  clientSecretsSchema,
  clientGrantTypes,
  withClientSecrets,
  hashClientSecret,
  clientSecretMatches,
  generateClientSecret,
  providerMetadataOf,
  usesClientSecret,
  reservedClientIdProblem,
  type ClientEntry,
} from './client-entries';
