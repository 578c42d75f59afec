export { refusedAddressReason } from './refused-address';
export { EgressRefusedError, checkTarget, sendGuarded, type EgressPolicy, type GuardedRequest, type GuardedResponse, type HostResolver } from './guarded-request';
