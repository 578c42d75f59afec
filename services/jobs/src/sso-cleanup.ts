import { z } from 'zod';
import type { ssoV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { JobDefinition } from './job-consumer';

/** The `org.deleted` domain event as its JSON body carries it (docs/events.md). */
const orgDeletedEventSchema = z.object({
  id: z.string().min(1),
  orgDeleted: z.object({ organizationId: z.uuid() }),
});

export type OrgDeletedEvent = z.infer<typeof orgDeletedEventSchema>;

/**
 * A durable consumer of `events.org.deleted`: the oauth unit removes the
 * deleted organisation's SSO connections and the outside subjects linked
 * through them (docs/sso.md). At least once: a redelivered event finds
 * nothing left to remove. oauth removes nothing while identity still has
 * the organisation, since the bus alone is not trusted: an event for a live
 * organisation is refused (counted, nothing done).
 *
 * Retried until done: connections of a deleted organisation no longer sign
 * anyone in, but their secrets (sealed OpenID client secrets, SP keys)
 * must not stay behind unnoticed.
 */
export function ssoCleanupJob(deps: { readonly sso: ServiceClient<typeof ssoV1.SsoServiceService> }): JobDefinition<OrgDeletedEvent> {
  return {
    name: 'sso_cleanup',
    subject: 'events.org.deleted',
    stream: 'events',
    schema: orgDeletedEventSchema,
    async handle(event, context) {
      const organizationId = event.orgDeleted.organizationId;
      const { removed, organizationExists } = await deps.sso.deleteOrganizationConnections({ organizationId }, context);
      if (organizationExists) {
        context.logger.warn({ organization_id: organizationId }, 'org.deleted for an organisation that exists; nothing deleted');
        return 'refused';
      }
      if (removed > 0) context.logger.info({ organization_id: organizationId, sso_connections: removed }, 'SSO connections of a deleted organisation removed');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
    retries: 'until_done',
  };
}
