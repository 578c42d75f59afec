export { startTotpService, TOTP_SCHEMA, type TotpServiceOptions } from './totp-service';
export { migrate } from './migrate';
export { configSchema, loadTotpConfig, type TotpConfig } from './config';
