export { ServiceServer, type ServiceServerOptions } from './service-server';
export {
  createServiceClient,
  type ServiceClient,
  type ServiceClientOptions,
  type CallSettings,
} from './service-client';
export type { CallContext, ServiceHandlers, ServiceDefinitionShape } from './service-definition';
export { toStatus, fromServiceError } from './error-status';
export { isDependencyOutage } from './dependency-outage';
export { metadataKeys } from './metadata-keys';
export { serverCredentials, channelCredentials, type TlsFiles } from './tls';
export { HealthProbe } from './health-client';
export { startGrpcEndpoints, tlsFilesOf, type GrpcEndpoints, type GrpcEndpointSettings } from './grpc-endpoints';
