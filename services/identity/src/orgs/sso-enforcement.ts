import type pg from 'pg';
import { AppError } from '@latchkey/errors';
import { emailDomainOf } from './sso-domain-names';

/**
 * The organisation that enforces SSO for an email: the one that verified
 * the email's domain, when it enforces. One look-up on the unique index of
 * verified domains, read now (nothing cached), so that enforcement holds
 * from the moment it is turned on.
 */
export async function enforcingOrganizationOf(db: pg.ClientBase | pg.Pool, email: string): Promise<{ id: string; slug: string } | undefined> {
  const domain = emailDomainOf(email);
  if (domain === undefined) return undefined;
  const { rows } = await db.query<{ id: string; slug: string }>(
    `SELECT o.id, o.slug FROM identity.org_domains d JOIN identity.organizations o ON o.id = d.organization_id
      WHERE d.domain = $1 AND d.verified_at IS NOT NULL AND o.sso_enforced`,
    [domain],
  );
  return rows[0];
}

/**
 * Refuses a sign-in by any method but the organisation's SSO connection
 * (a password, a passkey, Google or GitHub) of an email whose organisation
 * enforces SSO: auth:sso_required, naming the organisation so that the
 * client can start its SSO sign-in.
 */
export async function refuseWhenSsoRequired(db: pg.ClientBase | pg.Pool, email: string): Promise<void> {
  const organization = await enforcingOrganizationOf(db, email);
  if (organization) throw new AppError('auth:sso_required', undefined, { orgSlug: organization.slug });
}
