import { z } from 'zod';
import type { oidcV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { JobDefinition } from './job-consumer';

/** The `session.revoked` domain event as its JSON body carries it (docs/events.md). */
const sessionRevokedEventSchema = z.object({
  id: z.string().min(1),
  occurredAt: z.iso.datetime(),
  sessionRevoked: z.object({
    userId: z.uuid(),
    reason: z.string().default(''),
    sessionIds: z.array(z.string().min(1)).default([]),
    keptSessionId: z.string().default(''),
  }),
});

export type SessionRevokedEvent = z.infer<typeof sessionRevokedEventSchema>;

/**
 * A durable consumer of `events.session.revoked`, which identity publishes
 * for every way Latchkey sessions end: identity queues, through its outbox,
 * one back-channel logout job for each OpenID client that those sessions
 * signed in to (docs/oidc.md, "Logout"). A redelivered event queues
 * nothing twice: identity drops each session's records as it queues.
 *
 * Retried until done: a client never told of a logout keeps the user
 * signed in, and nobody would notice a parked event. An identity outage of
 * hours delays the logouts (the backoff caps at a minute) but loses none;
 * only an event that does not parse, or that identity refuses as invalid,
 * is parked.
 */
export function oidcSessionEndingJob(deps: { readonly oidc: ServiceClient<typeof oidcV1.OidcServiceService> }): JobDefinition<SessionRevokedEvent> {
  return {
    name: 'oidc_session_ending',
    subject: 'events.session.revoked',
    stream: 'events',
    schema: sessionRevokedEventSchema,
    async handle(event, context) {
      const { userId, sessionIds, keptSessionId } = event.sessionRevoked;
      const { queued } = await deps.oidc.endSessions({ userId, sessionIds, keptSessionId, endedAt: new Date(event.occurredAt) }, context);
      if (queued > 0) context.logger.info({ user_id: userId, backchannel_logouts: queued }, 'OpenID clients to be told that sessions ended');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
    retries: 'until_done',
  };
}
