import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import { checkNewEmail, normalizeEmail } from '../account-rules';
import { queueMail } from '../mail-queue';
import { decodePageToken, encodePageToken, pageKeySql } from '../page-tokens';
import { findUserById, holdUserById } from '../user-store';
import type { OrgsDeps } from './orgs-deps';
import { checkId, checkRoleName, isId, refuse } from './org-fields';
import { actorOfChange, recordOrgAudit } from './org-audit-log';
import { actingMember, findMembership, organizationOf } from './membership-store';
import { pageLimit, rolePermissions } from './members';
import { mayGrant } from './permissions';
import { queueOrgEvent } from './webhook-messages';

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

const INVITATION_COLUMNS = 'id, organization_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at';

/** What became of an invitation, now. */
function statusOf(row: InvitationRow, now = Date.now()): orgsV1.InvitationStatus {
  if (row.accepted_at) return orgsV1.InvitationStatus.INVITATION_STATUS_ACCEPTED;
  if (row.revoked_at) return orgsV1.InvitationStatus.INVITATION_STATUS_REVOKED;
  return row.expires_at.getTime() <= now ? orgsV1.InvitationStatus.INVITATION_STATUS_EXPIRED : orgsV1.InvitationStatus.INVITATION_STATUS_PENDING;
}

function invitationOf(row: InvitationRow): orgsV1.Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: statusOf(row),
    invitedBy: row.invited_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** The SQL condition of each status, on the invitations' columns. */
const statusConditions: Partial<Record<orgsV1.InvitationStatus, string>> = {
  [orgsV1.InvitationStatus.INVITATION_STATUS_PENDING]: 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()',
  [orgsV1.InvitationStatus.INVITATION_STATUS_ACCEPTED]: 'accepted_at IS NOT NULL',
  [orgsV1.InvitationStatus.INVITATION_STATUS_REVOKED]: 'revoked_at IS NOT NULL',
  [orgsV1.InvitationStatus.INVITATION_STATUS_EXPIRED]: 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at <= now()',
};

/**
 * Invites an address with a role (invitations:manage; nobody offers more
 * than they hold, only an owner offers owner) and mails it the link, in
 * the transaction that records it. The organisation's row is locked, so
 * that two invitations of one address at once make one pending invitation.
 */
export async function createInvitation(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly email: string; readonly role: string },
  context: RequestContext,
): Promise<orgsV1.Invitation> {
  refuse([...checkNewEmail(input.email), ...checkRoleName(input.role)]);
  const email = normalizeEmail(input.email);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'invitations:manage' });
    if (!mayGrant(actor, input.role, await rolePermissions(db, actor.organizationId, input.role))) throw new AppError('org:forbidden');
    const { rows: present } = await db.query<{ member: boolean; pending: boolean }>(
      `SELECT EXISTS (SELECT FROM identity.org_memberships m JOIN identity.users u ON u.id = m.user_id
                      WHERE m.organization_id = $1 AND u.email = $2) AS member,
              EXISTS (SELECT FROM identity.org_invitations
                      WHERE organization_id = $1 AND email = $2 AND ${statusConditions[orgsV1.InvitationStatus.INVITATION_STATUS_PENDING]}) AS pending`,
      [actor.organizationId, email],
    );
    if (present[0]!.member) throw new AppError('org:already_member');
    if (present[0]!.pending) throw new AppError('org:invitation_pending');
    const token = generateOpaqueToken();
    const { rows } = await db.query<InvitationRow>(
      `INSERT INTO identity.org_invitations (id, organization_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7)) RETURNING ${INVITATION_COLUMNS}`,
      [randomUUID(), actor.organizationId, email, input.role, hashOpaqueToken(token), actor.userId, deps.invitationTtlHours],
    );
    const invitation = rows[0]!;
    const inviter = (await findUserById(db, actor.userId))!;
    await queueMail(
      db,
      { template: 'org_invitation', to: email, token, organization_name: actor.name, inviter_handle: inviter.handle, role: input.role },
      context,
    );
    await queueOrgEvent(db, 'org.invitation.created',
      { organizationId: actor.organizationId, invitationId: invitation.id, role: input.role, actorUserId: actor.userId },
      context,
    );
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'org.invitation.created',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'invitation', id: invitation.id },
        data: { role: input.role },
      },
      context,
    );
    return invitationOf(invitation);
  });
}

/** Invitations newest first, one status or all (invitations:manage), with keyset pages. */
export async function listInvitations(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly status: orgsV1.InvitationStatus; readonly limit: number; readonly cursor: string },
  context: RequestContext,
): Promise<{ invitations: orgsV1.Invitation[]; nextCursor: string }> {
  const limit = pageLimit(input.limit, 50, 100);
  const after = decodePageToken(input.cursor, 'cursor');
  const condition = statusConditions[input.status] ?? 'true';
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: 'invitations:manage' });
    const { rows } = await db.query<InvitationRow & { page_key: string }>(
      `SELECT ${INVITATION_COLUMNS}, ${pageKeySql('created_at')} AS page_key FROM identity.org_invitations
       WHERE organization_id = $1 AND (${condition}) AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [actor.organizationId, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { invitations: page.map(invitationOf), nextCursor: rows.length > limit && last ? encodePageToken(last.page_key, last.id) : '' };
  });
}

/** Withdraws a pending invitation (invitations:manage): its link fails from then on. */
export async function revokeInvitation(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly invitationId: string },
  context: RequestContext,
): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: 'invitations:manage' });
    const { rowCount } = isId(input.invitationId)
      ? await db.query(
          `UPDATE identity.org_invitations SET revoked_at = now()
           WHERE id = $1 AND organization_id = $2 AND ${statusConditions[orgsV1.InvitationStatus.INVITATION_STATUS_PENDING]}`,
          [input.invitationId, actor.organizationId],
        )
      : { rowCount: 0 };
    if (rowCount === 0) throw new AppError('org:invitation_not_found');
    await queueOrgEvent(db, 'org.invitation.revoked', { organizationId: actor.organizationId, invitationId: input.invitationId, actorUserId: actor.userId }, context);
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'org.invitation.revoked',
        actor: actorOfChange(actor.userId, context),
        target: { type: 'invitation', id: input.invitationId },
      },
      context,
    );
  });
}

/** The pending invitation of a link's token, with its organisation; org:invitation_invalid when there is none. */
async function pendingInvitation(db: pg.ClientBase | pg.Pool, token: string, lock = false): Promise<InvitationRow & { slug: string; name: string }> {
  const { rows } = await db.query<InvitationRow & { slug: string; name: string }>(
    `SELECT i.id, i.organization_id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.accepted_at, i.revoked_at, o.slug, o.name
     FROM identity.org_invitations i JOIN identity.organizations o ON o.id = i.organization_id
     WHERE i.token_hash = $1${lock ? ' FOR UPDATE OF i' : ''}`,
    [hashOpaqueToken(token)],
  );
  const row = rows[0];
  if (!row || statusOf(row) !== orgsV1.InvitationStatus.INVITATION_STATUS_PENDING) throw new AppError('org:invitation_invalid');
  return row;
}

/** What a link invites to, for whoever holds it. */
export async function lookupInvitation(deps: OrgsDeps, token: string): Promise<orgsV1.LookupInvitationResponse> {
  const invitation = await pendingInvitation(deps.pool, token);
  return { organizationId: invitation.organization_id, organizationSlug: invitation.slug, organizationName: invitation.name, email: invitation.email, role: invitation.role };
}

/**
 * Accepts an invitation for an account whose verified email is the
 * invited address. The account is held first (holdUserById). The
 * organisation's row is locked before the
 * invitation's, in the order revocations take them: of two acceptances,
 * or an acceptance and a revocation, at once, the second finds the
 * invitation no longer pending.
 */
export async function acceptInvitation(deps: OrgsDeps, input: { readonly token: string; readonly userId: string }, context: RequestContext): Promise<orgsV1.Organization> {
  refuse(checkId(input.userId, 'user_id'));
  return withTransaction(deps.pool, context, async (db) => {
    const { organization_id: organizationId } = await pendingInvitation(db, input.token);
    const user = await holdUserById(db, input.userId);
    if (!user) throw new AppError('auth:unauthorized');
    await db.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [organizationId]);
    const invitation = await pendingInvitation(db, input.token, true);
    if (!user.email_verified_at || normalizeEmail(user.email) !== invitation.email) throw new AppError('org:invitation_email_mismatch');
    if (await findMembership(db, user.id, organizationId)) throw new AppError('org:already_member');
    await db.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, $3, 'invitation')`, [
      organizationId,
      user.id,
      invitation.role,
    ]);
    await db.query('UPDATE identity.org_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [invitation.id, user.id]);
    await queueOrgEvent(db, 'org.invitation.accepted', { organizationId, invitationId: invitation.id, userId: user.id }, context);
    await queueOrgEvent(db, 'org.member.added', { organizationId, userId: user.id, role: invitation.role, source: 'invitation' }, context);
    const actor = actorOfChange(user.id, context);
    await recordOrgAudit(db, { organizationId, action: 'org.invitation.accepted', actor, target: { type: 'invitation', id: invitation.id } }, context);
    await recordOrgAudit(
      db,
      { organizationId, action: 'org.member.added', actor, target: { type: 'user', id: user.id }, data: { role: invitation.role, source: 'invitation' } },
      context,
    );
    return organizationOf((await findMembership(db, user.id, organizationId))!);
  });
}
