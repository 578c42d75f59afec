import { z } from 'zod';
import { errorCatalogue } from '@latchkey/errors';

const codes = Object.keys(errorCatalogue) as [keyof typeof errorCatalogue, ...(keyof typeof errorCatalogue)[]];

export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(codes),
    detail: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    org_slug: z.string().optional().describe('With auth:sso_required: the organisation whose SSO connection the account signs in through.'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details with the API error code.' });

/** Documents the problem+json answers a route can give. */
export function problemResponses(...statuses: number[]): Record<number, typeof problemSchema> {
  return Object.fromEntries(statuses.map((status) => [status, problemSchema]));
}

/** Answers without a body: 202 Accepted and 204 No Content. */
export const accepted = { 202: z.null().describe('Accepted; no body.') };
export const noContent = { 204: z.null().describe('No content.') };
