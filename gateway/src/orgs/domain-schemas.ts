import { z } from 'zod';
import { timestamp } from '../http/fields';
import { orgIdParams } from './org-schemas';

/**
 * docs/api.md, "Enterprise SSO". The shapes only: what
 * a claimable domain is (registrable, not free mail) is identity's rule.
 */

const domainStatuses = ['pending', 'verified'] as const;

export const domainSchema = z
  .object({
    domain: z.string().describe('Normalised: lower case, punycode, no trailing dot.'),
    status: z.enum(domainStatuses),
    verification: z
      .object({
        type: z.literal('dns_txt'),
        name: z.string().describe('`_latchkey-challenge.{domain}`'),
        value: z.string().describe('What a TXT record at `name` must hold.'),
      })
      .optional()
      .describe('How to prove the domain; while it is pending.'),
    created_at: timestamp,
    verified_at: timestamp.nullable(),
  })
  .meta({ id: 'OrganizationDomain' });

export const domainListSchema = z.object({ items: z.array(domainSchema) });

export const domainParams = orgIdParams.extend({ domain: z.string().min(1).max(253) });

export const domainBody = z.object({ domain: z.string().max(253).describe('A domain the organisation owns, such as example.com; Unicode or punycode.') });
