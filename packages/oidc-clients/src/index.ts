export {
  CLIENT_ID,
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
  type ClientEntry,
} from './client-entries';
