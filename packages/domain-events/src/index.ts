export { EVENT_VERSION, eventSubject, eventTypes, payloadFieldOf, queueEvent, type EventType } from './domain-events';
