export { loadConfig, ConfigError } from './load-config';
export { env, processVariables, backingServices, grpcServiceVariables } from './variables';
export { signingKeysSchema, signingKeyFor, type SigningKey, type SigningAlgorithm, type PublicJwk } from './signing-keys';
