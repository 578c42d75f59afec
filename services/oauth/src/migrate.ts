import path from 'node:path';
import { serviceSchemaMigration } from '@latchkey/outbox';
import { OAUTH_SCHEMA } from './oauth-service';

/** `oauth migrate`: brings schema `oauth` up to date, then exits. */
export const migrate = serviceSchemaMigration(OAUTH_SCHEMA, path.resolve(__dirname, '../migrations'));
