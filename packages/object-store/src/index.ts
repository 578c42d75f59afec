export { objectStoreVariables, s3CredentialsPaired, s3CredentialsProblem, type ObjectStoreSettings } from './s3-settings';
export { createS3Client, isMissingObject } from './s3-client';
export { ContentStore, type ContentStoreLogger, type RequestOptions } from './content-store';
