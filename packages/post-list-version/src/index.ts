export { postListVersionKey, publishPostListVersion, readPostListVersion } from './post-list-version';
