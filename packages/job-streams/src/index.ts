export { ensureStreams, topology } from './job-streams';
