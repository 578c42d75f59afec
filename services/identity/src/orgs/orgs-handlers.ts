import type { orgsV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import type { OrgsDeps } from './orgs-deps';
import { checkId, refuse } from './org-fields';
import { addDomain, getDomain, listDomains, removeDomain, verifyDomain } from './org-domains';
import { exportAuditLog, listAuditLog } from './audit-reading';
import { acceptInvitation, createInvitation, listInvitations, lookupInvitation, revokeInvitation } from './invitations';
import { findMembership, findRole, listMembershipsOf, organizationOf } from './membership-store';
import { changeMemberRole, listMembers, memberPage, pageLimit, removeMember } from './members';
import { createOrganization, deleteOrganization, getOrganization, listOrganizations, updateOrganization } from './organizations';
import { holds, isPermission } from './permissions';
import { createRole, deleteRole, getRole, listRoles, updateRole } from './roles';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './webhooks';
import { listWebhookDeliveries, retryWebhookDelivery, sendTestWebhook } from './webhook-deliveries';

/** One thin function per RPC of orgs.v1 OrganizationsService: the rules are the operations'. */
export function organizationsHandlers(deps: OrgsDeps): ServiceHandlers<typeof orgsV1.OrganizationsServiceService> {
  return {
    async createOrganization(request, context) {
      return { organization: await createOrganization(deps, request, context) };
    },
    async getOrganization({ actorUserId, organization }) {
      return { organization: await getOrganization(deps, actorUserId, organization) };
    },
    async listOrganizations({ actorUserId }) {
      return { organizations: await listOrganizations(deps, actorUserId) };
    },
    async updateOrganization(request, context) {
      return { organization: await updateOrganization(deps, request, context) };
    },
    async deleteOrganization(request, context) {
      await deleteOrganization(deps, request, context);
      return {};
    },
    async createRole(request, context) {
      return { role: await createRole(deps, request, context) };
    },
    async listRoles(request, context) {
      return { roles: await listRoles(deps, request, context) };
    },
    async getRole(request, context) {
      return { role: await getRole(deps, request, context) };
    },
    async updateRole(request, context) {
      return { role: await updateRole(deps, request, context) };
    },
    async deleteRole(request, context) {
      await deleteRole(deps, request, context);
      return {};
    },
    async listMembers(request, context) {
      return listMembers(deps, request, context);
    },
    async changeMemberRole(request, context) {
      return { member: await changeMemberRole(deps, request, context) };
    },
    async removeMember(request, context) {
      await removeMember(deps, request, context);
      return {};
    },
    async createInvitation(request, context) {
      return { invitation: await createInvitation(deps, request, context) };
    },
    async listInvitations(request, context) {
      return listInvitations(deps, request, context);
    },
    async revokeInvitation(request, context) {
      await revokeInvitation(deps, request, context);
      return {};
    },
    async lookupInvitation({ token }) {
      return lookupInvitation(deps, token);
    },
    async acceptInvitation(request, context) {
      return { organization: await acceptInvitation(deps, request, context) };
    },
    async getMembership({ userId, organization }) {
      refuse(checkId(userId, 'user_id'));
      const membership = await findMembership(deps.pool, userId, organization);
      return membership ? { found: true, organization: organizationOf(membership) } : { found: false };
    },
    async listMemberships({ userId }) {
      refuse(checkId(userId, 'user_id'));
      return { organizations: (await listMembershipsOf(deps.pool, userId)).map(organizationOf) };
    },
    async addDomain(request, context) {
      return { domain: await addDomain(deps, request, context) };
    },
    async verifyDomain(request, context) {
      return { domain: await verifyDomain(deps, request, context) };
    },
    async listDomains(request, context) {
      return { domains: await listDomains(deps, request, context) };
    },
    async getDomain(request, context) {
      return { domain: await getDomain(deps, request, context) };
    },
    async removeDomain(request, context) {
      await removeDomain(deps, request, context);
      return {};
    },
    async listAuditLog(request, context) {
      return listAuditLog(deps, request, context);
    },
    async exportAuditLog(request, context) {
      return exportAuditLog(deps, request, context);
    },
    async createWebhook(request, context) {
      return createWebhook(deps, request, context);
    },
    async listWebhooks(request, context) {
      return { webhooks: await listWebhooks(deps, request, context) };
    },
    async getWebhook(request, context) {
      return { webhook: await getWebhook(deps, request, context) };
    },
    async updateWebhook({ url, eventsGiven, events, description, enabled, ...call }, context) {
      return { webhook: await updateWebhook(deps, { ...call, url, events: eventsGiven ? events : undefined, description, enabled }, context) };
    },
    async deleteWebhook(request, context) {
      await deleteWebhook(deps, request, context);
      return {};
    },
    async rotateWebhookSecret(request, context) {
      return rotateWebhookSecret(deps, request, context);
    },
    async listWebhookDeliveries(request, context) {
      return listWebhookDeliveries(deps, request, context);
    },
    async retryWebhookDelivery(request, context) {
      return { messageId: await retryWebhookDelivery(deps, request, context) };
    },
    async sendTestWebhook(request, context) {
      return { messageId: await sendTestWebhook(deps, request, context) };
    },
  };
}

/** orgs.v1 OrganizationAccessService: what the services beside Latchkey ask (docs/organisations.md). */
export function organizationAccessHandlers(deps: OrgsDeps): ServiceHandlers<typeof orgsV1.OrganizationAccessServiceService> {
  return {
    async checkPermission({ userId, organizationId, permission }) {
      refuse([...checkId(userId, 'user_id'), ...checkId(organizationId, 'organization_id')]);
      if (!isPermission(permission)) throw AppError.validation([{ field: 'permission', message: 'must be resource:action' }]);
      const membership = await findRole(deps.pool, userId, organizationId);
      if (!membership) return { allowed: false, role: '' };
      return { allowed: holds(membership.role, membership.permissions, permission), role: membership.role };
    },
    async listUserMemberships({ userId }) {
      refuse(checkId(userId, 'user_id'));
      return { organizations: (await listMembershipsOf(deps.pool, userId)).map(organizationOf) };
    },
    async listOrganizationMembers({ organizationId, limit, cursor }) {
      refuse(checkId(organizationId, 'organization_id'));
      const { rows } = await deps.pool.query('SELECT FROM identity.organizations WHERE id = $1', [organizationId]);
      if (rows.length === 0) throw new AppError('org:not_found');
      return memberPage(deps.pool, organizationId, { limit: pageLimit(limit, 100, 1_000), cursor });
    },
  };
}
