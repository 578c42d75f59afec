import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { noContent, problemResponses } from '../http/problem-schema';
import type { CredentialLimits } from '../limits/credential-limits';
import type { OrganizationLimits } from '../limits/organization-limits';
import { requireSession, sessionOf, type SessionAccess } from '../sessions/session-auth';
import type { OrgsClient } from '../service-clients';
import {
  invitationBody,
  invitationLookupSchema,
  invitationPageSchema,
  invitationParams,
  invitationQuery,
  invitationSchema,
  invitationTokenBody,
  memberPageSchema,
  memberParams,
  memberQuery,
  memberRoleBody,
  memberSchema,
  organizationSchema,
  orgIdParams,
} from './org-schemas';
import { invitationStatusOf, invitationView, memberView, organizationView } from './org-views';

export type MembershipRoutesDeps = SessionAccess & {
  readonly orgs: OrgsClient;
  readonly organizationLimits: OrganizationLimits;
  readonly limits: CredentialLimits;
};

/**
 * Members and invitations (docs/api.md, "Organisations"). A change to a
 * member drops the account view kept in that member's sessions, so that
 * their next GET /v0/users/me shows the change (tokens and introspection
 * ask identity every time).
 */
export function membershipRoutes(deps: MembershipRoutesDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const session = requireSession(deps);
    const tags = ['organisations'];

    app.get(
      '/v0/orgs/:org_id/members',
      {
        schema: {
          tags,
          summary: 'The members, in the order they joined (members:read); keyset pages.',
          params: orgIdParams,
          querystring: memberQuery,
          response: { 200: memberPageSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const page = await deps.orgs.listMembers(
          { actorUserId: sessionOf(request).userId, organizationId: request.params.org_id, limit: request.query.limit ?? 0, cursor: request.query.cursor ?? '' },
          request.ctx,
        );
        return { items: page.members.map(memberView), next_cursor: page.nextCursor || null };
      },
    );

    app.patch(
      '/v0/orgs/:org_id/members/:user_id',
      {
        schema: {
          tags,
          summary: 'Give a member another role (members:manage; only an owner grants or takes away owner; 409 org:last_owner for the last owner).',
          params: memberParams,
          body: memberRoleBody,
          response: { 200: memberSchema, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const { org_id: organizationId, user_id: userId } = request.params;
        const { member } = await deps.orgs.changeMemberRole({ actorUserId: sessionOf(request).userId, organizationId, userId, role: request.body.role }, request.ctx);
        await deps.sessions.forgetProfiles(userId);
        return memberView(member!);
      },
    );

    app.delete(
      '/v0/orgs/:org_id/members/:user_id',
      {
        schema: {
          tags,
          summary: 'Remove a member (members:manage; only an owner removes an owner), or leave: the caller’s own id. 409 org:last_owner for the last owner.',
          params: memberParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 409, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { org_id: organizationId, user_id: userId } = request.params;
        await deps.orgs.removeMember({ actorUserId: sessionOf(request).userId, organizationId, userId }, request.ctx);
        await deps.sessions.forgetProfiles(userId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/orgs/:org_id/invitations',
      {
        schema: {
          tags,
          summary: 'Invite an address with a role (invitations:manage); mails it a link to accept.',
          params: orgIdParams,
          body: invitationBody,
          response: { 201: invitationSchema, ...problemResponses(400, 401, 403, 404, 409, 429, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const actorUserId = sessionOf(request).userId;
        const organizationId = request.params.org_id;
        // Membership first: a stranger's calls must not spend the organisation's invitations.
        await deps.orgs.getOrganization({ actorUserId, organization: organizationId }, request.ctx);
        await deps.organizationLimits.assertInvitationAllowed(organizationId, request.body.email);
        const { invitation } = await deps.orgs.createInvitation({ actorUserId, organizationId, ...request.body }, request.ctx);
        return reply.code(201).send(invitationView(invitation!));
      },
    );

    app.get(
      '/v0/orgs/:org_id/invitations',
      {
        schema: {
          tags,
          summary: 'The invitations, newest first, of one status or all (invitations:manage); keyset pages.',
          params: orgIdParams,
          querystring: invitationQuery,
          response: { 200: invitationPageSchema, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request) => {
        const page = await deps.orgs.listInvitations(
          {
            actorUserId: sessionOf(request).userId,
            organizationId: request.params.org_id,
            status: invitationStatusOf(request.query.status),
            limit: request.query.limit ?? 0,
            cursor: request.query.cursor ?? '',
          },
          request.ctx,
        );
        return { items: page.invitations.map(invitationView), next_cursor: page.nextCursor || null };
      },
    );

    app.delete(
      '/v0/orgs/:org_id/invitations/:id',
      {
        schema: {
          tags,
          summary: 'Withdraw a pending invitation (invitations:manage): its link fails from then on.',
          params: invitationParams,
          response: { ...noContent, ...problemResponses(400, 401, 403, 404, 503) },
        },
        onRequest: session,
      },
      async (request, reply) => {
        const { org_id: organizationId, id: invitationId } = request.params;
        await deps.orgs.revokeInvitation({ actorUserId: sessionOf(request).userId, organizationId, invitationId }, request.ctx);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v0/invitations/lookup',
      {
        schema: {
          tags,
          summary: 'What an invitation link invites to; no session needed. 400 org:invitation_invalid for an unknown, used, revoked or expired one.',
          body: invitationTokenBody,
          response: { 200: invitationLookupSchema, ...problemResponses(400, 429, 503) },
        },
        preHandler: deps.limits.perClientIp,
      },
      async (request) => {
        const found = await deps.orgs.lookupInvitation(request.body, request.ctx);
        return { org: { id: found.organizationId, slug: found.organizationSlug, name: found.organizationName }, email: found.email, role: found.role };
      },
    );

    app.post(
      '/v0/invitations/accept',
      {
        schema: {
          tags,
          summary: 'Accept an invitation: the account must have the invited address, verified (403 org:invitation_email_mismatch otherwise).',
          body: invitationTokenBody,
          response: { 200: organizationSchema, ...problemResponses(400, 401, 403, 409, 429, 503) },
        },
        onRequest: session,
        preHandler: deps.limits.perClientIp,
      },
      async (request) => {
        const userId = sessionOf(request).userId;
        const { organization } = await deps.orgs.acceptInvitation({ token: request.body.token, userId }, request.ctx);
        await deps.sessions.forgetProfiles(userId);
        return organizationView(organization!);
      },
    );
  };
}
