import { domainToASCII } from 'node:url';
import freeEmailDomains from 'free-email-domains';
import { parse } from 'tldts';
import type { FieldError } from '@latchkey/errors';

/** The DNS name whose TXT record proves a domain (docs/organisations.md, "Verified domains"). */
export const CHALLENGE_LABEL = '_latchkey-challenge';

const FREE_MAIL = new Set<string>(freeEmailDomains);

/**
 * A domain as it is stored and compared: IDNA to punycode (which also
 * lower-cases), without a trailing dot; undefined when it is no host name.
 */
export function normalizeDomain(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.includes('@') || trimmed.includes('/')) return undefined;
  const ascii = domainToASCII(trimmed);
  if (ascii === '' || ascii.length > 253 || !ascii.includes('.')) return undefined;
  return ascii;
}

/** The domain of an email address, normalised as domains are; undefined for no address. */
export function emailDomainOf(email: string): string | undefined {
  const at = email.trim().lastIndexOf('@');
  return at < 1 ? undefined : normalizeDomain(email.trim().slice(at + 1));
}

/**
 * A domain an organisation may claim: a host name under a public suffix
 * (ICANN's or a private one such as github.io), not the suffix itself, not
 * an IP address, and not a free-mail provider's, whose addresses belong to
 * everybody.
 */
export function claimableDomain(input: string, field = 'domain'): { domain: string; problems: FieldError[] } {
  const domain = normalizeDomain(input);
  if (domain === undefined) return { domain: '', problems: [{ field, message: 'must be a domain name such as example.com' }] };
  const parsed = parse(domain, { allowPrivateDomains: true });
  if (parsed.isIp || parsed.domain === null || parsed.publicSuffix === domain || parsed.isIcann === null) {
    return { domain, problems: [{ field, message: 'must be a registrable domain, not a public suffix such as co.uk' }] };
  }
  if (FREE_MAIL.has(domain) || FREE_MAIL.has(parsed.domain)) {
    return { domain, problems: [{ field, message: "must be the organisation's own domain, not a free mail provider's" }] };
  }
  return { domain, problems: [] };
}
