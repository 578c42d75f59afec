export { startPasskeysService, PASSKEYS_SCHEMA } from './passkeys-service';
export { migrate } from './migrate';
export { configSchema, loadPasskeysConfig, type PasskeysConfig } from './config';
