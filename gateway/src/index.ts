export { buildApp } from './app';
export { startGateway } from './gateway-server';
export { configSchema, loadGatewayConfig, type GatewayConfig } from './config';
export { userSchema } from './account-view/user-schema';
export { sessionListSchema } from './sessions/session-schemas';
export { problemSchema } from './http/problem-schema';
