import path from 'node:path';
import { serviceSchemaMigration } from '@latchkey/outbox';
import { POSTS_SCHEMA } from './posts-service';

/**
 * `posts migrate`: brings schema `posts` up to date, then exits.
 * Schema `search`, which SearchPosts reads, is the jobs worker's (`jobs migrate`).
 */
export const migrate = serviceSchemaMigration(POSTS_SCHEMA, path.resolve(__dirname, '../migrations'));
