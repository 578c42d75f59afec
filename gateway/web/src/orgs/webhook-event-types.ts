/**
 * The event types an endpoint may subscribe to, in docs/events.md's order,
 * with what each says happened. The browser cannot import identity's
 * catalogue (`webhookEventTypes`, services/identity/src/orgs/webhooks.ts,
 * drawn from packages/domain-events), so this is the web app's copy;
 * test/browser/webhooks.test.ts fails when the two differ.
 */
export const webhookEventTypes: readonly { readonly type: string; readonly summary: string }[] = [
  { type: 'org.created', summary: 'the organisation was created' },
  { type: 'org.updated', summary: 'its name or slug changed' },
  { type: 'org.deleted', summary: 'it was deleted' },
  { type: 'org.member.added', summary: 'someone joined' },
  { type: 'org.member.removed', summary: 'a member was removed or left' },
  { type: 'org.member.role_changed', summary: 'a member’s role changed' },
  { type: 'org.invitation.created', summary: 'an invitation was sent' },
  { type: 'org.invitation.accepted', summary: 'an invitation was accepted' },
  { type: 'org.invitation.revoked', summary: 'an invitation was revoked' },
  { type: 'org.member.suspended', summary: 'the identity provider suspended a member' },
  { type: 'org.member.reactivated', summary: 'the identity provider reactivated a member' },
];

/** What an endpoint's `events` mean to a reader: `["*"]` is every type, also those added later. */
export function describeEvents(events: readonly string[]): string {
  return events.includes('*') ? 'All events' : events.join(', ');
}
