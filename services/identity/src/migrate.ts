import path from 'node:path';
import { serviceSchemaMigration } from '@latchkey/outbox';
import { IDENTITY_SCHEMA } from './identity-service';

/** `identity migrate`: brings schema `identity` up to date, then exits. */
export const migrate = serviceSchemaMigration(IDENTITY_SCHEMA, path.resolve(__dirname, '../migrations'));
