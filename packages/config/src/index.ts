export { loadConfig, ConfigError } from './load-config';
export {
  env,
  processVariables,
  backingServices,
  grpcServiceVariables,
  mutualTlsVariables,
  platformApiVariables,
  platformCaGiven,
  platformCaProblem,
} from './variables';
export { assertMutualTlsInProduction } from './production-transport';
export { signingKeysSchema, signingKeyFor, type SigningKey, type SigningAlgorithm, type PublicJwk } from './signing-keys';
