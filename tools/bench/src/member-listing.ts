import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { LargeOrganization } from './large-organization';
import { summarizeLatencies, type LatencySummary } from './latency-stats';

/** docs/api.md, "Organisations": `limit` is at most 100 for the member listing. */
export const MEMBER_PAGE_LIMIT = 100;

/** Walks through every page of the large organisation this many times after the load. */
export const MEMBER_LISTING_PASSES = 5;

/** What reading a large organisation's members costs one reader, apart from how many pages a second the gateway serves. */
export interface MemberListing {
  /** Members of the organisation, the reader included. */
  readonly members: number;
  readonly pagesPerPass: number;
  readonly passes: number;
  /** Passes that did not see every member exactly once. */
  readonly incompletePasses: number;
  /** Each page, one request at a time: the page's own time, no queueing. */
  readonly latency: LatencySummary;
}

const memberPageSchema = z.object({
  items: z.array(z.object({ user: z.object({ id: z.string() }) })),
  next_cursor: z.string().nullable(),
});

/** The path of the member listing's page after `cursor` (the first page without one). */
export function memberPagePath(organizationId: string, cursor: string | null): string {
  const path = `/v0/orgs/${organizationId}/members?limit=${MEMBER_PAGE_LIMIT}`;
  return cursor === null ? path : `${path}&cursor=${encodeURIComponent(cursor)}`;
}

/** One page of the member listing, as the reader: its member ids and the next page's cursor. */
async function fetchMemberPage(
  gatewayUrl: string,
  organization: LargeOrganization,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<{ ids: string[]; nextCursor: string | null }> {
  const response = await fetch(`${gatewayUrl}${memberPagePath(organization.id, cursor)}`, {
    headers: { cookie: `session_id=${organization.readerCookie}` },
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`members of ${organization.id}: ${response.status} ${text.slice(0, 300)}`);
  const page = memberPageSchema.parse(JSON.parse(text));
  return { ids: page.items.map((item) => item.user.id), nextCursor: page.next_cursor };
}

/** Walks the listing from its first page to its last, as a client would, timing each page. */
async function walkMembers(
  gatewayUrl: string,
  organization: LargeOrganization,
  signal?: AbortSignal,
): Promise<{ paths: string[]; ids: string[]; timesMs: number[] }> {
  const paths: string[] = [];
  const ids: string[] = [];
  const timesMs: number[] = [];
  let cursor: string | null = null;
  do {
    signal?.throwIfAborted();
    paths.push(memberPagePath(organization.id, cursor));
    const started = performance.now();
    const page = await fetchMemberPage(gatewayUrl, organization, cursor, signal);
    timesMs.push(performance.now() - started);
    ids.push(...page.ids);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { paths, ids, timesMs };
}

/** Every page's path, found by walking the listing once: the load rotates over them. */
export async function memberPagePaths(gatewayUrl: string, organization: LargeOrganization, signal?: AbortSignal): Promise<string[]> {
  return (await walkMembers(gatewayUrl, organization, signal)).paths;
}

/**
 * Reads every page of the organisation's members `passes` times, one
 * request at a time, and checks that each pass saw every member once.
 */
export async function measureMemberListing(
  gatewayUrl: string,
  organization: LargeOrganization,
  passes: number,
  signal?: AbortSignal,
): Promise<MemberListing> {
  const times: number[] = [];
  let incompletePasses = 0;
  let pagesPerPass = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    const walked = await walkMembers(gatewayUrl, organization, signal);
    times.push(...walked.timesMs);
    pagesPerPass = walked.paths.length;
    if (walked.ids.length !== organization.members || new Set(walked.ids).size !== organization.members) incompletePasses += 1;
  }
  return { members: organization.members, pagesPerPass, passes, incompletePasses, latency: summarizeLatencies(times) };
}
