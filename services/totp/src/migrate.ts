import path from 'node:path';
import { serviceSchemaMigration } from '@latchkey/outbox';
import { TOTP_SCHEMA } from './totp-service';

/** `totp migrate`: brings schema `totp` up to date, then exits. */
export const migrate = serviceSchemaMigration(TOTP_SCHEMA, path.resolve(__dirname, '../migrations'));
