export { ensureStreams, topology } from './job-streams';
export { busPermissions, busUsers, inboxPrefixOf, producedJobs, streamOwner, type BusPermissions, type BusUser } from './bus-permissions';
export { connectToBus, type BusSettings } from './bus-connection';
