import { Resolver } from 'node:dns/promises';

/** Looks up the TXT records of a DNS name: each record's strings, as node's resolver answers them. */
export type TxtLookup = (name: string) => Promise<string[][]>;

/** Each server gets this long per try. */
const TIMEOUT_MS = 1_000;
const TRIES = 2;
/**
 * The whole look-up, however many servers DNS_SERVERS names, gives up
 * after this long, well inside the gateway's 5 s budget for a request, so
 * that a silent DNS is "not verified yet" (409) rather than a timed-out
 * call (503).
 */
const LOOKUP_BUDGET_MS = 3_000;

/**
 * TXT look-ups through the DNS servers DNS_SERVERS names (`host:port`,
 * docs/operations.md, "Enterprise SSO"), or the system's resolvers when it
 * names none. A resolver per look-up, so that the budget's end cancels
 * that look-up alone.
 */
export function txtLookup(servers: readonly string[]): TxtLookup {
  return async (name) => {
    const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
    if (servers.length > 0) resolver.setServers([...servers]);
    const budget = setTimeout(() => resolver.cancel(), LOOKUP_BUDGET_MS);
    try {
      return await resolver.resolveTxt(name);
    } finally {
      clearTimeout(budget);
    }
  };
}

/**
 * Whether a TXT record at `name` holds `value`. A record longer than 255
 * bytes comes in several strings, joined. No such name, no answer, a
 * timeout or a server failure are all "not found": the caller answers
 * org:domain_unverified, and the owner retries once DNS has the record.
 */
export async function txtRecordHolds(lookup: TxtLookup, name: string, value: string): Promise<boolean> {
  try {
    const records = await lookup(name);
    return records.some((strings) => strings.join('').trim() === value);
  } catch {
    return false;
  }
}
