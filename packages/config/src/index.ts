export { loadConfig, ConfigError } from './load-config';
export {
  env,
  processVariables,
  backingServices,
  grpcServiceVariables,
  redisVariables,
  redisModeProblems,
  natsVariables,
  databaseVariables,
  type RedisSettings,
  mutualTlsVariables,
  platformApiVariables,
  platformCaGiven,
  platformCaProblem,
  serviceTokenVariables,
} from './variables';
export { assertMutualTlsInProduction } from './production-transport';
export {
  signingKeysSchema,
  signingKeyFor,
  signingAlgorithms,
  openIdProviderKeyProblems,
  type SigningKey,
  type SigningAlgorithm,
  type PublicJwk,
} from './signing-keys';
