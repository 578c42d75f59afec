export { changeCredentials, type LedgerReservations } from './credential-changes';
export { lockAccounts } from './account-locks';
export { settleAccounts } from './settlement';
export { startLedgerSweep, sweepLedger, type SweepDeps } from './ledger-sweep';
export type { CredentialOwner, IdentityClient } from './credential-owner';
