export { startIdentityService, IDENTITY_SCHEMA } from './identity-service';
export { migrate } from './migrate';
export { configSchema, loadIdentityConfig, type IdentityConfig } from './config';
