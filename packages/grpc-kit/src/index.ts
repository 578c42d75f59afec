export { ServiceServer, DEFAULT_MAX_CONNECTION_AGE_MS, type ServiceServerOptions } from './service-server';
export { createServiceClient, type ServiceClient, type ServiceClientOptions } from './service-client';
export type { ServiceHandlers, ServiceDefinitionShape } from './service-definition';
export { startRequestContext, withOwnRequestContext, remainingMs, type RequestContext, type StartedRequestContext, type ClientOfRequest } from './request-context';
export { composeServerMiddleware, type ServerMiddleware, type ServerCall } from './server-middleware';
export { serverDeadline, DEFAULT_CALL_BUDGET_MS } from './call-deadline';
export { toStatus, fromServiceError, contractErrorOf } from './error-status';
export { isDependencyOutage } from './dependency-outage';
export { metadataKeys } from './metadata-keys';
export { OPERATOR_MAX_LENGTH, operatorProblem, operatorOfCommandLine } from './operator';
export { serverCredentials, channelCredentials, watchedCertificatesOf, DEFAULT_TLS_RELOAD_INTERVAL_MS, type TlsFiles } from './tls';
export { WatchedCertificates, type LoadedCertificates, type CertificateEvent } from './watched-certificates';
export { observeCertificates } from './certificate-observer';
export {
  EVERY_METHOD,
  allowedCallersOf,
  callerNamesOf,
  subjectAltNamesOf,
  type CallerAllowList,
  type CallerIdentity,
} from './caller-identity';
export { HealthProbe } from './health-client';
export {
  startGrpcEndpoints,
  startPlatformServer,
  tlsFilesOf,
  platformTlsFilesOf,
  type GrpcEndpoints,
  type GrpcEndpointSettings,
  type MutualTlsSettings,
  type PlatformService,
} from './grpc-endpoints';
