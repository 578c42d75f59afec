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
} from './variables';
