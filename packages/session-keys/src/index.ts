export { endSessionsBefore, sessionEpochOf, sessionKey, userSessionsKey } from './session-keys';
