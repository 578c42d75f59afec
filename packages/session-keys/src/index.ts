export { endSessions, endSessionsBefore, sessionEpochOf, sessionKey, userSessionsKey } from './session-keys';
