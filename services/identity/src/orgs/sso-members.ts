import { randomInt } from 'node:crypto';
import type pg from 'pg';
import { uuidv7 } from 'uuidv7';
import type { identityV1, orgsV1 } from '@latchkey/contracts';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import { queueEvent } from '@latchkey/domain-events';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { checkEmail, checkNewEmail, normalizeEmail } from '../account-rules';
import { dropPassword, findUserByEmail, findUserById, insertUser, markEmailVerified, type UserRecord } from '../user-store';
import { passwordPredatesVerification } from '../provider-link';
import { queueSessionsRevoked } from '../session-revocation';
import type { IdentityDeps } from '../identity-deps';
import { queueMail } from '../mail-queue';
import { issueToken } from '../one-time-tokens';
import { insertMembership } from './membership-store';
import { actorOfChange, recordOrgAudit, recordSignInWithin } from './org-audit-log';
import { memberOf, memberRow, ownerCount } from './members';
import { checkId, checkRoleName, refuse, SLUG } from './org-fields';
import { emailDomainOf } from './sso-domain-names';
import { queueOrgEvent } from './webhook-messages';

/** What provisioning needs of identity. */
type SsoDeps = Pick<IdentityDeps, 'pool' | 'tokenTtlMinutes'>;

/** Attempts at a free handle before giving up (each a savepoint's insert). */
const HANDLE_ATTEMPTS = 8;
const MAX_HANDLE_LENGTH = 32;
/** Room kept after the base of a handle for "_" and a number that makes it unique. */
const SUFFIX_ROOM = 7;

interface SsoOrganization {
  readonly id: string;
  readonly slug: string;
  readonly sso_enforced: boolean;
}

/**
 * Home-realm discovery: the organisation of a slug, or the one whose
 * verified domain an email is in (docs/organisations.md, "Enterprise SSO").
 * By id it answers whether the organisation still exists, which the oauth
 * unit asks before removing a deleted organisation's connections.
 */
export async function findSsoOrganization(
  db: pg.Pool,
  input: { readonly email: string; readonly organizationSlug: string; readonly organizationId?: string | undefined },
): Promise<identityV1.FindSsoOrganizationResponse> {
  if (input.organizationId !== undefined && input.organizationId !== '') {
    refuse(checkId(input.organizationId, 'organization_id'));
    const { rows } = await db.query<SsoOrganization>('SELECT id, slug, sso_enforced FROM identity.organizations WHERE id = $1', [input.organizationId]);
    const found = rows[0];
    if (!found) throw new AppError('org:not_found');
    return { organizationId: found.id, organizationSlug: found.slug, ssoEnforced: found.sso_enforced, emailDomainVerified: false };
  }
  const problems: FieldError[] = [];
  if (input.email === '' && input.organizationSlug === '') problems.push({ field: 'email', message: 'or organization_slug is required' });
  if (input.email !== '') problems.push(...checkEmail(input.email));
  refuse(problems);
  const domain = input.email === '' ? undefined : emailDomainOf(normalizeEmail(input.email));
  if (input.organizationSlug !== '') {
    if (!SLUG.test(input.organizationSlug)) throw new AppError('org:not_found');
    const { rows } = await db.query<SsoOrganization & { email_domain_verified: boolean }>(
      `SELECT o.id, o.slug, o.sso_enforced,
              EXISTS (SELECT FROM identity.org_domains d WHERE d.organization_id = o.id AND d.domain = $2 AND d.verified_at IS NOT NULL) AS email_domain_verified
         FROM identity.organizations o WHERE o.slug = $1`,
      [input.organizationSlug, domain ?? ''],
    );
    const found = rows[0];
    if (!found) throw new AppError('org:not_found');
    return { organizationId: found.id, organizationSlug: found.slug, ssoEnforced: found.sso_enforced, emailDomainVerified: found.email_domain_verified };
  }
  const { rows } = await db.query<SsoOrganization>(
    `SELECT o.id, o.slug, o.sso_enforced FROM identity.org_domains d JOIN identity.organizations o ON o.id = d.organization_id
      WHERE d.domain = $1 AND d.verified_at IS NOT NULL`,
    [domain ?? ''],
  );
  const found = rows[0];
  if (!found) throw new AppError('org:not_found');
  return { organizationId: found.id, organizationSlug: found.slug, ssoEnforced: found.sso_enforced, emailDomainVerified: true };
}

/** The start of a handle made from an email's local part: its letters, digits and "_", lower-cased, at least 3. */
export function handleBaseOf(email: string): string {
  const local = normalizeEmail(email).split('@')[0] ?? '';
  const base = local
    // Accents go (é → e), anything else outside the handle's alphabet becomes "_".
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_HANDLE_LENGTH - SUFFIX_ROOM);
  return base.length >= 3 ? base : `${base}${base === '' ? '' : '_'}user`.replace(/^_/, '');
}

/** The handles to try, in order: the base, then the base with a growing random number. */
function handleCandidate(base: string, attempt: number): string {
  if (attempt === 0) return base;
  return `${base}_${randomInt(10 ** Math.min(attempt + 1, 6))}`;
}

/**
 * Creates the account of an SSO sign-in: verified, no password, a handle
 * from the email's local part made unique. Each try is a savepoint, so
 * that a handle taken meanwhile costs a retry, not the transaction; an
 * email taken meanwhile (two first sign-ins at once) is the account then.
 */
export async function createSsoAccount(db: pg.ClientBase, email: string): Promise<{ user: UserRecord; created: boolean }> {
  const base = handleBaseOf(email);
  for (let attempt = 0; attempt < HANDLE_ATTEMPTS; attempt += 1) {
    const handle = handleCandidate(base, attempt);
    const { rows } = await db.query('SELECT FROM identity.users WHERE handle = $1', [handle]);
    if (rows.length > 0) continue;
    await db.query('SAVEPOINT sso_account');
    try {
      const user = await insertUser(db, { id: uuidv7(), handle, email, passwordHash: null, emailVerified: true });
      await db.query('RELEASE SAVEPOINT sso_account');
      return { user, created: true };
    } catch (error) {
      await db.query('ROLLBACK TO SAVEPOINT sso_account');
      if (isUniqueViolation(error, 'users_email_key')) {
        const existing = await findUserByEmail(db, email);
        if (existing) return { user: existing, created: false };
      }
      if (!isUniqueViolation(error, 'users_handle_key')) throw error;
    }
  }
  throw new Error('no free handle found for an SSO account');
}

/**
 * An existing account signing in through SSO for the first time: the IdP
 * vouches for its address, so an unverified one counts verified now, and a
 * password chosen before the address was proved (maybe a squatter's, see
 * provider-link.ts) is dropped with every session, as for a provider link.
 */
export async function linkSsoAccount(deps: SsoDeps, db: pg.ClientBase, user: UserRecord, context: RequestContext): Promise<UserRecord> {
  if (user.disabled_at) throw new AppError('auth:account_disabled');
  const squatted = user.password_hash !== null && (user.email_verified_at === null || passwordPredatesVerification(user));
  let linked = user.email_verified_at ? user : ((await markEmailVerified(db, user.id)) as UserRecord);
  if (squatted) {
    linked = (await dropPassword(db, user.id)) as UserRecord;
    await queueSessionsRevoked(db, linked, 'password_dropped', context);
    const token = await issueToken(db, user.id, 'reset_password', deps.tokenTtlMinutes.resetPassword);
    await queueMail(db, { template: 'password_dropped', to: linked.email, handle: linked.handle, token, provider: 'sso' }, context);
  }
  return linked;
}

/**
 * Makes the account a member with the role, or keeps its membership: a
 * role from the IdP's groups replaces the one held (the directory is the
 * source of truth for group-mapped roles), a connection's default role
 * does not (an admin may have promoted the member since); the last owner
 * stays owner whatever the IdP says.
 */
async function ensureSsoMembership(
  db: pg.ClientBase,
  input: { readonly organizationId: string; readonly userId: string; readonly role: string; readonly roleFromGroups: boolean },
  context: RequestContext,
): Promise<orgsV1.Member> {
  const existing = await memberRow(db, input.organizationId, input.userId);
  if (!existing) {
    // No member made this change: the organisation's IdP vouched for the person, so the audit log names Latchkey (system).
    await insertMembership(db, { organizationId: input.organizationId, userId: input.userId, role: input.role, source: 'sso', actorUserId: '' }, context);
    return memberOf((await memberRow(db, input.organizationId, input.userId))!);
  }
  if (!input.roleFromGroups || existing.role === input.role) return memberOf(existing);
  if (existing.role === 'owner' && (await ownerCount(db, input.organizationId)) <= 1) return memberOf(existing);
  await db.query('UPDATE identity.org_memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2', [input.organizationId, input.userId, input.role]);
  await queueOrgEvent(db, 'org.member.role_changed',
    { organizationId: input.organizationId, userId: input.userId, role: input.role, previousRole: existing.role, actorUserId: '' },
    context,
  );
  await recordOrgAudit(
    db,
    {
      organizationId: input.organizationId,
      action: 'org.member.role_changed',
      actor: actorOfChange('', context),
      target: { type: 'user', id: input.userId },
      data: { role: input.role, previous_role: existing.role, source: 'sso' },
    },
    context,
  );
  return memberOf({ ...existing, role: input.role });
}

/**
 * The account side of a valid SSO sign-in (docs/decisions/0004-enterprise-sso.md),
 * in one transaction with the organisation's row locked: the domain check,
 * the account found or created, the membership, the connection as an
 * active first factor in the credential ledger, and the events that are
 * the organisation's record of it.
 */
export async function provisionSsoMember(
  deps: SsoDeps,
  request: identityV1.ProvisionSsoMemberRequest,
  context: RequestContext,
): Promise<{ user: UserRecord; created: boolean; member: orgsV1.Member }> {
  refuse([
    ...checkId(request.organizationId, 'organization_id'),
    ...checkId(request.connectionId, 'connection_id'),
    ...checkNewEmail(request.email),
    ...checkRoleName(request.role),
  ]);
  if (!request.emailVerified) throw new AppError('sso:response_invalid', 'The identity provider does not vouch for the email address.');
  const email = normalizeEmail(request.email);
  const domain = emailDomainOf(email);
  const organizationId = request.organizationId.toLowerCase();
  const connectionId = request.connectionId.toLowerCase();
  return withTransaction(deps.pool, context, async (tx) => {
    // The account's row before the organisation's, in the order an account deletion takes them; one
    // deleted meanwhile is no account (a new one is made).
    const found = await findUserByEmail(tx, email);
    const existing = found && (await findUserById(tx, found.id, true));
    const { rows: organizations } = await tx.query('SELECT FROM identity.organizations WHERE id = $1 FOR UPDATE', [organizationId]);
    if (organizations.length === 0) throw new AppError('org:not_found');
    const { rows: domains } = await tx.query('SELECT FROM identity.org_domains WHERE organization_id = $1 AND domain = $2 AND verified_at IS NOT NULL', [
      organizationId,
      domain ?? '',
    ]);
    if (domains.length === 0) throw new AppError('sso:domain_mismatch');
    const { rows: roles } = await tx.query('SELECT FROM identity.org_roles WHERE organization_id = $1 AND name = $2', [organizationId, request.role]);
    if (roles.length === 0) throw new AppError('org:role_not_found');

    const account = existing ? { user: await linkSsoAccount(deps, tx, existing, context), created: false } : await createSsoAccount(tx, email);
    if (!existing && !account.created) await linkSsoAccount(deps, tx, account.user, context);
    if (account.created) await queueEvent(tx, 'user.registered', { userId: account.user.id, method: 'sso' }, context);
    const member = await ensureSsoMembership(
      tx,
      { organizationId, userId: account.user.id, role: request.role, roleFromGroups: request.roleFromGroups },
      context,
    );
    await tx.query(
      `INSERT INTO identity.credentials (user_id, kind, reference, state) VALUES ($1, 'sso', $2, 'active')
       ON CONFLICT (user_id, kind, reference) DO UPDATE SET state = 'active', changed_at = now()`,
      [account.user.id, connectionId],
    );
    // A member's sign-in is an entry of each of its organisations' audit logs, the connection's among them.
    await recordSignInWithin(tx, account.user.id, { succeeded: true, method: 'sso', connectionId }, context);
    const user = (await findUserById(tx, account.user.id))!;
    return { user, created: account.created, member };
  });
}

/** A deleted connection is no way in any more: its ledger rows go. */
export async function dropSsoConnection(db: pg.Pool, request: identityV1.DropSsoConnectionRequest): Promise<number> {
  refuse([...checkId(request.organizationId, 'organization_id'), ...checkId(request.connectionId, 'connection_id')]);
  const { rowCount } = await db.query(`DELETE FROM identity.credentials WHERE kind = 'sso' AND reference = $1`, [request.connectionId.toLowerCase()]);
  return rowCount ?? 0;
}
