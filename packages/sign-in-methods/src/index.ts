export { finishRemovals, removeOwnedMethod, type IdentityClient, type OwnedMethod } from './method-removal';
export { listOwnedMethods, startLedgerSweep, type MethodOwner } from './ledger-listing';
