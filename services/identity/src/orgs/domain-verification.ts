import { Resolver } from 'node:dns/promises';

/** Looks up the TXT records of a DNS name: each record's strings, as node's resolver answers them. */
export type TxtLookup = (name: string) => Promise<string[][]>;

/** A look-up gives up after this long per try, so that a verification answers within a request's budget. */
const TIMEOUT_MS = 2_000;
const TRIES = 2;

/**
 * TXT look-ups through the DNS servers DNS_SERVERS names (`host:port`,
 * docs/operations.md), or the system's resolvers when it names none.
 */
export function txtLookup(servers: readonly string[]): TxtLookup {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
  if (servers.length > 0) resolver.setServers([...servers]);
  return (name) => resolver.resolveTxt(name);
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
