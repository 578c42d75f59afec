import { orgsV1 } from '@latchkey/contracts';
import type { z } from 'zod';
import type { domainSchema } from './domain-schemas';
import type { webhookDeliverySchema, webhookSchema } from './webhook-schemas';
import type { invitationSchema, invitationStatuses, memberSchema, organizationSchema, roleSchema } from './org-schemas';

/** orgs.v1's answers as docs/api.md, "Organisations", shows them. */

export function organizationView(organization: orgsV1.Organization): z.output<typeof organizationSchema> {
  return {
    id: organization.id,
    slug: organization.slug,
    name: organization.name,
    created_at: (organization.createdAt ?? new Date(0)).toISOString(),
    role: organization.role,
    permissions: organization.permissions,
    sso_enforced: organization.ssoEnforced,
  };
}

export function roleView(role: orgsV1.Role): z.output<typeof roleSchema> {
  return { name: role.name, permissions: role.permissions, built_in: role.builtIn };
}

const sources: Readonly<Record<orgsV1.MembershipSource, z.output<typeof memberSchema>['source']>> = {
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_UNSPECIFIED]: 'admin',
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_CREATOR]: 'creator',
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_INVITATION]: 'invitation',
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SSO]: 'sso',
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_SCIM]: 'scim',
  [orgsV1.MembershipSource.MEMBERSHIP_SOURCE_ADMIN]: 'admin',
  [orgsV1.MembershipSource.UNRECOGNIZED]: 'admin',
};

export function memberView(member: orgsV1.Member): z.output<typeof memberSchema> {
  return {
    user: { id: member.userId, handle: member.handle, email: member.email },
    role: member.role,
    source: sources[member.source],
    joined_at: (member.joinedAt ?? new Date(0)).toISOString(),
  };
}

type InvitationStatus = (typeof invitationStatuses)[number];

const statuses: Readonly<Record<InvitationStatus, orgsV1.InvitationStatus>> = {
  pending: orgsV1.InvitationStatus.INVITATION_STATUS_PENDING,
  accepted: orgsV1.InvitationStatus.INVITATION_STATUS_ACCEPTED,
  revoked: orgsV1.InvitationStatus.INVITATION_STATUS_REVOKED,
  expired: orgsV1.InvitationStatus.INVITATION_STATUS_EXPIRED,
};

/** The proto status a status filter asks for; none asks for every status. */
export function invitationStatusOf(status: InvitationStatus | undefined): orgsV1.InvitationStatus {
  return status === undefined ? orgsV1.InvitationStatus.INVITATION_STATUS_UNSPECIFIED : statuses[status];
}

export function invitationView(invitation: orgsV1.Invitation): z.output<typeof invitationSchema> {
  const status = (Object.keys(statuses) as InvitationStatus[]).find((name) => statuses[name] === invitation.status) ?? 'pending';
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status,
    invited_by: invitation.invitedBy,
    created_at: (invitation.createdAt ?? new Date(0)).toISOString(),
    expires_at: (invitation.expiresAt ?? new Date(0)).toISOString(),
  };
}

export function domainView(domain: orgsV1.Domain): z.output<typeof domainSchema> {
  const verified = domain.status === orgsV1.DomainStatus.DOMAIN_STATUS_VERIFIED;
  return {
    domain: domain.domain,
    status: verified ? 'verified' : 'pending',
    ...(verified ? {} : { verification: { type: 'dns_txt' as const, name: domain.verificationName, value: domain.verificationValue } }),
    created_at: (domain.createdAt ?? new Date(0)).toISOString(),
    verified_at: domain.verifiedAt ? domain.verifiedAt.toISOString() : null,
  };
}

export function webhookView(webhook: orgsV1.Webhook): z.output<typeof webhookSchema> {
  return {
    id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    events: webhook.events,
    enabled: webhook.enabled,
    created_at: (webhook.createdAt ?? new Date(0)).toISOString(),
    updated_at: (webhook.updatedAt ?? new Date(0)).toISOString(),
    failing_since: webhook.failingSince?.toISOString() ?? null,
  };
}

export function webhookDeliveryView(delivery: orgsV1.WebhookDelivery): z.output<typeof webhookDeliverySchema> {
  return {
    id: delivery.id,
    message_id: delivery.messageId,
    event_type: delivery.eventType,
    status: delivery.status as z.output<typeof webhookDeliverySchema>['status'],
    response_status: delivery.responseStatus ?? null,
    duration_ms: delivery.durationMs,
    attempted_at: (delivery.attemptedAt ?? new Date(0)).toISOString(),
  };
}
