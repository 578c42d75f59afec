export { loadConfig, ConfigError } from './load-config';
export { env, processVariables, backingServices, grpcServiceVariables } from './variables';
