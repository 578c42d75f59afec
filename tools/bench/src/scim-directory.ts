import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { z } from 'zod';
import { generateOpaqueToken, hashOpaqueToken } from '@latchkey/opaque-token';
import type { LargeOrganization } from './large-organization';
import { summarizeLatencies } from './latency-stats';
import type { MemberListing } from './member-listing';

/** docs/scim.md: Okta and Entra ID read a directory 100 users a page. */
export const SCIM_PAGE_COUNT = 100;

/** An organisation whose members its identity provider provisioned, and the provider's bearer token. */
export interface ScimDirectory {
  readonly organizationId: string;
  readonly users: number;
  readonly token: string;
}

/**
 * Makes every member of `organization` but its owner a SCIM-provisioned
 * account, as `POST /scim/v2/Users` leaves one (identity's migration
 * 019_scim.sql: a `scim_users` row, each a millisecond after the one
 * before, an external id), and issues the organisation a SCIM token.
 */
export async function seedScimDirectory(databaseUrl: string, organization: LargeOrganization): Promise<ScimDirectory> {
  const token = `lk_scim_${generateOpaqueToken()}`;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('BEGIN');
    const { rowCount } = await db.query(
      `INSERT INTO identity.scim_users (organization_id, user_id, external_id, display_name, created_at, updated_at)
       SELECT m.organization_id, m.user_id, 'okta-' || m.user_id, u.handle, m.joined_at, m.joined_at
         FROM identity.org_memberships m JOIN identity.users u ON u.id = m.user_id
        WHERE m.organization_id = $1 AND m.role <> 'owner'`,
      [organization.id],
    );
    await db.query(`INSERT INTO identity.scim_tokens (id, organization_id, token_hash, description) VALUES (gen_random_uuid(), $1, $2, 'bench')`, [
      organization.id,
      hashOpaqueToken(token),
    ]);
    await db.query('COMMIT');
    await db.query('ANALYZE identity.scim_users');
    return { organizationId: organization.id, users: rowCount ?? 0, token };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}

/** The path of the page of users from `startIndex` (1-based, as RFC 7644 counts). */
export function scimPagePath(startIndex: number): string {
  return `/scim/v2/Users?startIndex=${startIndex}&count=${SCIM_PAGE_COUNT}`;
}

/** Every page's path of a directory of `users`: the load rotates over them. */
export function scimPagePaths(users: number): string[] {
  return Array.from({ length: Math.ceil(users / SCIM_PAGE_COUNT) }, (_, page) => scimPagePath(1 + page * SCIM_PAGE_COUNT));
}

export function scimHeaders(directory: ScimDirectory): Record<string, string> {
  return { authorization: `Bearer ${directory.token}`, accept: 'application/scim+json' };
}

const listSchema = z.object({ totalResults: z.number(), Resources: z.array(z.object({ id: z.string() })) });

/**
 * Reads the directory page by page `passes` times, as an identity
 * provider's import does, one request at a time, and checks that each pass
 * saw every user once.
 */
export async function measureScimListing(gatewayUrl: string, directory: ScimDirectory, passes: number, signal?: AbortSignal): Promise<MemberListing> {
  const times: number[] = [];
  let incompletePasses = 0;
  const paths = scimPagePaths(directory.users);
  for (let pass = 0; pass < passes; pass += 1) {
    const ids: string[] = [];
    for (const path of paths) {
      signal?.throwIfAborted();
      const started = performance.now();
      const response = await fetch(`${gatewayUrl}${path}`, { headers: scimHeaders(directory), ...(signal ? { signal } : {}) });
      const text = await response.text();
      times.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`SCIM users of ${directory.organizationId}: ${response.status} ${text.slice(0, 300)}`);
      ids.push(...listSchema.parse(JSON.parse(text)).Resources.map((user) => user.id));
    }
    if (ids.length !== directory.users || new Set(ids).size !== directory.users) incompletePasses += 1;
  }
  return { members: directory.users, pagesPerPass: paths.length, passes, incompletePasses, latency: summarizeLatencies(times) };
}
