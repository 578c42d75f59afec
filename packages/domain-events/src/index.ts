export { EVENT_VERSION, eventSubject, eventTypes, payloadFieldOf, payloadJson, queueEvent, type EventPayload, type EventType } from './domain-events';
