export { calleeAddressOf, callerVariables, callerVariablesOf, type AddressVariableOf, type CallerVariables } from './caller-variables';
export {
  connectCallees,
  connectCalleesOf,
  type CalleeClients,
  type Callees,
  type CatalogueAndContracts,
  type CallerSettings,
  type ClientKeyOf,
  type ServiceClientOf,
} from './callee-clients';
export { probeCallees, probeCalleesOf, type CalleeProbe } from './callee-probes';
