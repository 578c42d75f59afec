import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { orgsV1 } from '@latchkey/contracts';
import { isUniqueViolation, withTransaction } from '@latchkey/db';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { OrgsDeps } from './orgs-deps';
import { actingMember } from './membership-store';
import { checkId, refuse } from './org-fields';
import { CHALLENGE_LABEL, claimableDomain, normalizeDomain } from './sso-domain-names';
import { txtRecordHolds } from './domain-verification';

/** The permission every domain call needs. */
const SSO_MANAGE = 'sso:manage';
/** Domains one organisation may claim, pending and verified. */
const MAX_DOMAINS = 50;

interface DomainRow {
  domain: string;
  verification_token: string;
  created_at: Date;
  verified_at: Date | null;
}

const DOMAIN_COLUMNS = 'domain, verification_token, created_at, verified_at';

function domainOf(row: DomainRow): orgsV1.Domain {
  return {
    domain: row.domain,
    status: row.verified_at ? orgsV1.DomainStatus.DOMAIN_STATUS_VERIFIED : orgsV1.DomainStatus.DOMAIN_STATUS_PENDING,
    verificationName: `${CHALLENGE_LABEL}.${row.domain}`,
    verificationValue: `latchkey-domain-verification=${row.verification_token}`,
    createdAt: row.created_at,
    verifiedAt: row.verified_at ?? undefined,
  };
}

interface DomainCall {
  readonly actorUserId: string;
  readonly organizationId: string;
  readonly domain: string;
}

/** A domain named in a call on one the organisation claimed: a name that is no domain cannot be one. */
function namedDomain(input: DomainCall): string {
  refuse(checkId(input.actorUserId, 'actor_user_id'));
  const domain = normalizeDomain(input.domain);
  if (domain === undefined) throw AppError.validation([{ field: 'domain', message: 'must be a domain name such as example.com' }]);
  return domain;
}

async function findDomain(db: pg.ClientBase, organizationId: string, domain: string, lock = false): Promise<DomainRow> {
  const { rows } = await db.query<DomainRow>(
    `SELECT ${DOMAIN_COLUMNS} FROM identity.org_domains WHERE organization_id = $1 AND domain = $2${lock ? ' FOR UPDATE' : ''}`,
    [organizationId, domain],
  );
  if (!rows[0]) throw new AppError('org:domain_not_found');
  return rows[0];
}

async function verifiedElsewhere(db: pg.ClientBase, organizationId: string, domain: string): Promise<boolean> {
  const { rows } = await db.query('SELECT FROM identity.org_domains WHERE domain = $1 AND verified_at IS NOT NULL AND organization_id <> $2', [
    domain,
    organizationId,
  ]);
  return rows.length > 0;
}

/** Claims a domain (sso:manage): pending with a fresh verification value, or as it is when claimed before. */
export async function addDomain(deps: OrgsDeps, input: DomainCall, context: RequestContext): Promise<orgsV1.Domain> {
  const { domain, problems } = claimableDomain(input.domain);
  refuse([...checkId(input.actorUserId, 'actor_user_id'), ...problems]);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: SSO_MANAGE });
    if (await verifiedElsewhere(db, actor.organizationId, domain)) throw new AppError('org:domain_taken');
    const { rows: existing } = await db.query<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM identity.org_domains WHERE organization_id = $1 AND domain = $2`, [
      actor.organizationId,
      domain,
    ]);
    if (existing[0]) return domainOf(existing[0]);
    const { rows: counted } = await db.query<{ claimed: number }>('SELECT count(*)::int AS claimed FROM identity.org_domains WHERE organization_id = $1', [
      actor.organizationId,
    ]);
    if (counted[0]!.claimed >= MAX_DOMAINS) throw new AppError('org:limit_reached', `An organisation claims at most ${MAX_DOMAINS} domains.`);
    const { rows } = await db.query<DomainRow>(
      `INSERT INTO identity.org_domains (organization_id, domain, verification_token) VALUES ($1, $2, $3) RETURNING ${DOMAIN_COLUMNS}`,
      [actor.organizationId, domain, randomBytes(24).toString('base64url')],
    );
    return domainOf(rows[0]!);
  });
}

/**
 * Verifies a domain by its TXT record (sso:manage). The look-up runs
 * outside any transaction (it may take seconds); the write then checks
 * again that no other organisation verified the domain meanwhile, and the
 * unique index of verified domains settles a race between two.
 */
export async function verifyDomain(deps: OrgsDeps, input: DomainCall, context: RequestContext): Promise<orgsV1.Domain> {
  const domain = namedDomain(input);
  const claimed = await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: SSO_MANAGE });
    return { organizationId: actor.organizationId, row: await findDomain(db, actor.organizationId, domain) };
  });
  if (claimed.row.verified_at) return domainOf(claimed.row);
  const expected = domainOf(claimed.row);
  if (!(await txtRecordHolds(deps.txtLookup, expected.verificationName, expected.verificationValue))) throw new AppError('org:domain_unverified');
  try {
    return await withTransaction(deps.pool, context, async (db) => {
      await actingMember(db, input.actorUserId, claimed.organizationId, { lock: true, needs: SSO_MANAGE });
      if (await verifiedElsewhere(db, claimed.organizationId, domain)) throw new AppError('org:domain_taken');
      const { rows } = await db.query<DomainRow>(
        `UPDATE identity.org_domains SET verified_at = coalesce(verified_at, now())
          WHERE organization_id = $1 AND domain = $2 AND verification_token = $3 RETURNING ${DOMAIN_COLUMNS}`,
        [claimed.organizationId, domain, claimed.row.verification_token],
      );
      if (!rows[0]) throw new AppError('org:domain_not_found');
      return domainOf(rows[0]);
    });
  } catch (error) {
    if (isUniqueViolation(error, 'org_domains_verified')) throw new AppError('org:domain_taken');
    throw error;
  }
}

/** The organisation's domains by name (sso:manage). */
export async function listDomains(deps: OrgsDeps, input: { readonly actorUserId: string; readonly organizationId: string }, context: RequestContext): Promise<orgsV1.Domain[]> {
  refuse(checkId(input.actorUserId, 'actor_user_id'));
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: SSO_MANAGE });
    const { rows } = await db.query<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM identity.org_domains WHERE organization_id = $1 ORDER BY domain`, [
      actor.organizationId,
    ]);
    return rows.map(domainOf);
  });
}

/** One domain of the organisation (sso:manage). */
export async function getDomain(deps: OrgsDeps, input: DomainCall, context: RequestContext): Promise<orgsV1.Domain> {
  const domain = namedDomain(input);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: SSO_MANAGE });
    return domainOf(await findDomain(db, actor.organizationId, domain));
  });
}

/**
 * Removes a domain (sso:manage). When it was the last verified one,
 * enforcement goes off with it: it would cover nobody, and turning it on
 * again needs a verified domain.
 */
export async function removeDomain(deps: OrgsDeps, input: DomainCall, context: RequestContext): Promise<void> {
  const domain = namedDomain(input);
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: SSO_MANAGE });
    await findDomain(db, actor.organizationId, domain, true);
    await db.query('DELETE FROM identity.org_domains WHERE organization_id = $1 AND domain = $2', [actor.organizationId, domain]);
    await db.query(
      `UPDATE identity.organizations SET sso_enforced = false, updated_at = now()
        WHERE id = $1 AND sso_enforced AND NOT EXISTS (SELECT FROM identity.org_domains WHERE organization_id = $1 AND verified_at IS NOT NULL)`,
      [actor.organizationId],
    );
  });
}

/** Whether the organisation has a verified domain: enforcement needs one. */
export async function hasVerifiedDomain(db: pg.ClientBase, organizationId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT FROM identity.org_domains WHERE organization_id = $1 AND verified_at IS NOT NULL LIMIT 1', [organizationId]);
  return rows.length > 0;
}
