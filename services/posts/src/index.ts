export { startPostsService, POSTS_SCHEMA } from './posts-service';
export { migrate } from './migrate';
export { configSchema, loadPostsConfig, type PostsConfig } from './config';
