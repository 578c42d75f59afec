export { buildApp } from './app';
export { startGateway } from './gateway-server';
export { configSchema, loadGatewayConfig, type GatewayConfig } from './config';
export { userSchema, sessionListSchema } from './schemas/account-schemas';
export { problemSchema } from './schemas/problem-schema';
