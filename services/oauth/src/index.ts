export { startOAuthService, OAUTH_SCHEMA } from './oauth-service';
export { migrate } from './migrate';
export { configSchema, loadOAuthConfig, type OAuthConfig } from './config';
