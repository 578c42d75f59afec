export { ensureStreams, topology } from './job-streams';
export { busPermissions, busUsers, inboxPrefixOf, streamOwner, type BusPermissions, type BusUser } from './bus-permissions';
export { connectToBus, type BusSettings } from './bus-connection';
