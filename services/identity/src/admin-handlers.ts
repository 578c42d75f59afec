import type { adminV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import {
  deleteUserAsAdmin,
  disableUser,
  enableUser,
  findUser,
  requireUserId,
  revokeAllSessions,
  sendPasswordReset,
} from './account-administration';
import { actorOf, listAuditPage, recordAdminAction, type AuditRecord } from './audit-log';
import { createClient, deleteClient, listStoredClients, rotateClientSecret, updateClient, type StoredClient } from './oidc/oidc-clients';
import type { IdentityDeps } from './identity-deps';
import type { Membership } from './orgs/membership-store';
import {
  addMemberAsAdmin,
  createOrganizationAsAdmin,
  deleteOrganizationAsAdmin,
  setSsoEnforcedAsAdmin,
  listOrganizationsPage,
  removeMemberAsAdmin,
  type OrganizationRecord,
} from './orgs/organization-administration';
import type { OrgsDeps } from './orgs/orgs-deps';
import { decodePageToken, encodePageToken, pageSizeOf } from './page-tokens';
import { toAdminUserMessage } from './user-message';
import { listUsersPage } from './user-store';

type AdminHandlers = ServiceHandlers<typeof adminV1.AdminServiceService>;

function toAuditEntry(record: AuditRecord): adminV1.AuditEntry {
  return {
    id: record.id,
    at: record.at,
    operator: record.operator,
    caller: record.caller,
    action: record.action,
    userId: record.user_id ?? '',
    reason: record.reason,
    clientId: record.client_id ?? '',
    organizationId: record.organization_id ?? '',
  };
}

function toClientMessage(client: StoredClient): adminV1.Client {
  return {
    clientId: client.clientId,
    entryJson: JSON.stringify(client.metadata),
    hasSecret: client.secretHash !== undefined,
    createdAt: client.createdAt,
    updatedAt: client.updatedAt,
  };
}

function toOrganizationMessage(organization: OrganizationRecord): adminV1.AdminOrganization {
  return { ...organization };
}

function toMemberMessage(member: Membership): adminV1.OrganizationMember {
  return { organizationId: member.organizationId, userId: member.userId, role: member.role, source: member.source, joinedAt: member.joinedAt };
}

/** One page and the token of the next: asks for one row more than it shows. */
function paged<T>(rows: T[], size: number, cursor: (row: T) => [string, string]): { page: T[]; next: string } {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { page, next: rows.length > size && last ? encodePageToken(...cursor(last)) : '' };
}

/**
 * admin.v1, one thin function per RPC (docs/integration.md, "Administration").
 * Reads of personal data are recorded before they are answered
 * (docs/operations.md, "Audit"): a read that cannot be recorded is not
 * answered.
 */
export function adminHandlers(deps: IdentityDeps, orgs: OrgsDeps): AdminHandlers {
  return {
    async findUser(request, context) {
      return { user: toAdminUserMessage(await findUser(deps, request, context)) };
    },
    async listUsers({ pageSize, pageToken }, context) {
      const actor = actorOf(context);
      const size = pageSizeOf(pageSize);
      const after = decodePageToken(pageToken);
      const rows = await listUsersPage(deps.pool, size + 1, after);
      const { page, next } = paged(rows, size, (user) => [user.page_key, user.id]);
      await recordAdminAction(deps.pool, { ...actor, action: 'list_users', userIds: page.map((user) => user.id) });
      return { users: page.map(toAdminUserMessage), nextPageToken: next };
    },
    async disableUser({ userId, reason }, context) {
      return { user: toAdminUserMessage(await disableUser(deps, { userId, reason }, context)) };
    },
    async enableUser({ userId }, context) {
      return { user: toAdminUserMessage(await enableUser(deps, userId, context)) };
    },
    async revokeAllSessions({ userId }, context) {
      await revokeAllSessions(deps, userId, context);
      return {};
    },
    async sendPasswordReset({ userId }, context) {
      await sendPasswordReset(deps, userId, context);
      return {};
    },
    async deleteUser({ userId }, context) {
      await deleteUserAsAdmin(deps, userId, context);
      return {};
    },
    async listAuditLog({ userId, pageSize, pageToken }, context) {
      const actor = actorOf(context);
      const size = pageSizeOf(pageSize);
      const subject = userId === '' ? undefined : requireUserId(userId);
      const rows = await listAuditPage(deps.pool, {
        userId: subject,
        limit: size + 1,
        after: decodePageToken(pageToken),
      });
      const { page, next } = paged(rows, size, (entry) => [entry.page_key, entry.id]);
      // The audit names accounts, what was done to them and why, and the staff who did it.
      await recordAdminAction(deps.pool, { ...actor, action: 'list_audit_log', userIds: [subject ?? null] });
      return { entries: page.map(toAuditEntry), nextPageToken: next };
    },
    async createClient({ entryJson }, context) {
      const { client, secret } = await createClient(deps, entryJson, context);
      return { client: toClientMessage(client), clientSecret: secret ?? '' };
    },
    async listClients(_request, context) {
      // Every admin.v1 call names the person at the keyboard.
      actorOf(context);
      return { clients: (await listStoredClients(deps.pool)).map(toClientMessage) };
    },
    async updateClient({ clientId, entryJson }, context) {
      const { client, secret } = await updateClient(deps, { clientId, entryJson }, context);
      return { client: toClientMessage(client), clientSecret: secret ?? '' };
    },
    async deleteClient({ clientId }, context) {
      await deleteClient(deps, clientId, context);
      return {};
    },
    async rotateClientSecret({ clientId }, context) {
      return { clientSecret: await rotateClientSecret(deps, clientId, context) };
    },
    async listOrganizations({ pageSize, pageToken }, context) {
      // Every admin.v1 call names the person at the keyboard; an organisation's name and slug are no one's personal data.
      actorOf(context);
      const size = pageSizeOf(pageSize);
      const rows = await listOrganizationsPage(deps.pool, size + 1, decodePageToken(pageToken));
      const { page, next } = paged(rows, size, (organization) => [organization.pageKey, organization.id]);
      return { organizations: page.map(toOrganizationMessage), nextPageToken: next };
    },
    async createOrganization(request, context) {
      return { organization: toOrganizationMessage(await createOrganizationAsAdmin(orgs, request, context)) };
    },
    async addOrganizationMember(request, context) {
      return { member: toMemberMessage(await addMemberAsAdmin(orgs, request, context)) };
    },
    async removeOrganizationMember(request, context) {
      await removeMemberAsAdmin(orgs, request, context);
      return {};
    },
    async deleteOrganization({ organizationId }, context) {
      await deleteOrganizationAsAdmin(orgs, organizationId, context);
      return {};
    },
    async setOrganizationSsoEnforced(request, context) {
      return { organization: toOrganizationMessage(await setSsoEnforcedAsAdmin(orgs, request, context)) };
    },
  };
}
