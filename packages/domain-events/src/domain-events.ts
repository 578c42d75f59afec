import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { eventsV1 } from '@latchkey/contracts';
import type { RequestContext } from '@latchkey/grpc-kit';
import { enqueueJob } from '@latchkey/outbox';

/** What each event type carries (proto/events/v1/events.proto). */
interface Payloads {
  'user.registered': eventsV1.UserRegistered;
  'user.email_verified': eventsV1.UserEmailVerified;
  'user.email_changed': eventsV1.UserEmailChanged;
  'user.deleted': eventsV1.UserDeleted;
  'user.disabled': eventsV1.UserDisabled;
  'session.revoked': eventsV1.SessionRevoked;
  'post.created': eventsV1.PostCreated;
  'post.updated': eventsV1.PostUpdated;
  'post.deleted': eventsV1.PostDeleted;
  'org.created': eventsV1.OrgCreated;
  'org.updated': eventsV1.OrgUpdated;
  'org.deleted': eventsV1.OrgDeleted;
  'org.member.added': eventsV1.OrgMemberAdded;
  'org.member.removed': eventsV1.OrgMemberRemoved;
  'org.member.role_changed': eventsV1.OrgMemberRoleChanged;
  'org.invitation.created': eventsV1.OrgInvitationCreated;
  'org.invitation.accepted': eventsV1.OrgInvitationAccepted;
  'org.invitation.revoked': eventsV1.OrgInvitationRevoked;
  'org.member.suspended': eventsV1.OrgMemberSuspended;
  'org.member.reactivated': eventsV1.OrgMemberReactivated;
}

export type EventType = keyof Payloads;

/** What an event of `Type` carries. */
export type EventPayload<Type extends EventType> = Payloads[Type];

/** The field of Event that holds each type's payload. */
const payloadFields: { readonly [Type in EventType]: keyof eventsV1.Event } = {
  'user.registered': 'userRegistered',
  'user.email_verified': 'userEmailVerified',
  'user.email_changed': 'userEmailChanged',
  'user.deleted': 'userDeleted',
  'user.disabled': 'userDisabled',
  'session.revoked': 'sessionRevoked',
  'post.created': 'postCreated',
  'post.updated': 'postUpdated',
  'post.deleted': 'postDeleted',
  'org.created': 'orgCreated',
  'org.updated': 'orgUpdated',
  'org.deleted': 'orgDeleted',
  'org.member.added': 'orgMemberAdded',
  'org.member.removed': 'orgMemberRemoved',
  'org.member.role_changed': 'orgMemberRoleChanged',
  'org.invitation.created': 'orgInvitationCreated',
  'org.invitation.accepted': 'orgInvitationAccepted',
  'org.invitation.revoked': 'orgInvitationRevoked',
  'org.member.suspended': 'orgMemberSuspended',
  'org.member.reactivated': 'orgMemberReactivated',
};

/** Every event type, in the order docs/events.md lists them. */
export const eventTypes = Object.keys(payloadFields) as EventType[];

/** The field of Event that holds a type's payload, for readers of the JSON body. */
export function payloadFieldOf(type: EventType): string {
  return payloadFields[type];
}

/** A payload as JSON, as it sits in the published event under its type's field: what a webhook's `data` is. */
export function payloadJson<Type extends EventType>(type: Type, payload: Payloads[Type]): unknown {
  const field = payloadFields[type];
  return (eventsV1.Event.toJSON({ ...eventsV1.Event.fromPartial({}), [field]: payload }) as Record<string, unknown>)[field];
}

/** The subject relative to the installation's prefix, as for jobs. */
export function eventSubject(type: EventType): string {
  return `events.${type}`;
}

/** The version of each type's payload; raised only for a change a consumer could not read. */
export const EVENT_VERSION = 1;

/**
 * Queues a domain event in the transaction of the change it reports: it is
 * published exactly when the change commits (the outbox relays it), with
 * its id as Nats-Msg-Id so a consumer can drop a repeat.
 */
export async function queueEvent<Type extends EventType>(
  db: pg.ClientBase,
  type: Type,
  payload: Payloads[Type],
  context: Pick<RequestContext, 'requestId'>,
): Promise<string> {
  const id = randomUUID();
  const event: eventsV1.Event = {
    ...eventsV1.Event.fromPartial({ id, type, version: EVENT_VERSION, occurredAt: new Date(), requestId: context.requestId }),
    [payloadFields[type]]: payload,
  };
  await enqueueJob(db, eventSubject(type), eventsV1.Event.toJSON(event), context, { id });
  return id;
}
