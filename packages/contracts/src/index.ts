/** Generated gRPC contracts, one namespace per proto package. */
export * as identityV1 from './gen/identity/v1/identity';
