import path from 'node:path';
import { serviceSchemaMigration } from '@latchkey/outbox';
import { PASSKEYS_SCHEMA } from './passkeys-service';

/** `passkeys migrate`: brings schema `passkeys` up to date, then exits. */
export const migrate = serviceSchemaMigration(PASSKEYS_SCHEMA, path.resolve(__dirname, '../migrations'));
