import { z } from 'zod';
import { emailField, timestamp, tokenField } from '../http/fields';

/**
 * docs/api.md, "Organisations". The shapes only: the rules (slugs, role
 * names, permissions, who may do what) are identity's, which answers with
 * field errors and the org:* codes.
 */

const permissions = z.array(z.string()).describe('Each `resource:action` (`^[a-z][a-z0-9_.-]*:[a-z*][a-z0-9_.*-]*$`), sorted.');

export const organizationSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    created_at: timestamp,
    role: z.string().describe('The caller’s role in it.'),
    permissions: permissions.describe('The caller’s permissions in it.'),
    sso_enforced: z.boolean().describe('Whether the accounts of its verified domains sign in only through its SSO connection.'),
  })
  .meta({ id: 'Organization' });

export const organizationListSchema = z.object({ items: z.array(organizationSchema) });

export const roleSchema = z
  .object({ name: z.string(), permissions, built_in: z.boolean().describe('owner, admin and member: they do not change.') })
  .meta({ id: 'OrganizationRole' });

export const roleListSchema = z.object({ items: z.array(roleSchema) });

export const memberSchema = z
  .object({
    user: z.object({ id: z.uuid(), handle: z.string(), email: z.string() }),
    role: z.string(),
    source: z.enum(['creator', 'invitation', 'sso', 'scim', 'admin']),
    joined_at: timestamp,
  })
  .meta({ id: 'OrganizationMember' });

export const memberPageSchema = z.object({ items: z.array(memberSchema), next_cursor: z.string().nullable() });

export const invitationStatuses = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const invitationSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: z.string(),
    status: z.enum(invitationStatuses),
    invited_by: z.uuid().describe('The inviting account (its invitations go with it).'),
    created_at: timestamp,
    expires_at: timestamp,
  })
  .meta({ id: 'OrganizationInvitation' });

export const invitationPageSchema = z.object({ items: z.array(invitationSchema), next_cursor: z.string().nullable() });

export const invitationLookupSchema = z
  .object({ org: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }), email: z.string(), role: z.string() })
  .meta({ id: 'InvitationLookup' });

export const orgIdParams = z.object({ org_id: z.uuid('must be a UUID') });
export const roleParams = orgIdParams.extend({ name: z.string().min(1).max(48) });
export const memberParams = orgIdParams.extend({ user_id: z.uuid('must be a UUID') });
export const invitationParams = orgIdParams.extend({ id: z.uuid('must be a UUID') });

export const createOrganizationBody = z.object({
  name: z.string().max(200).describe('1-100 characters after trimming, one line.'),
  slug: z.string().max(100).describe('3-48 characters of a-z, 0-9 and "-", not starting or ending with "-"; unique.'),
});

export const updateOrganizationBody = z.object({
  name: z.string().max(200).optional(),
  slug: z.string().max(100).optional(),
  sso_enforced: z.boolean().optional().describe('Enforce SSO for the accounts of its verified domains (sso:manage; needs a verified domain).'),
});

export const roleBody = z.object({
  name: z.string().max(100).describe('1-48 characters of a-z, 0-9, "_" and "-", starting with a letter; not owner, admin or member.'),
  permissions: z.array(z.string().max(100)).max(100).describe('1-100 permissions.'),
});

export const rolePermissionsBody = z.object({ permissions: roleBody.shape.permissions });

export const memberRoleBody = z.object({ role: z.string().max(100) });

export const invitationBody = z.object({ email: emailField, role: z.string().max(100) });

const limit = z.coerce.number().int('must be a whole number').min(1, 'must be 1-100').max(100, 'must be 1-100');
const cursor = z.string().min(1).max(512).describe('Opaque; from next_cursor of the previous page.');

export const memberQuery = z.object({ limit: limit.optional(), cursor: cursor.optional() });
export const invitationQuery = memberQuery.extend({ status: z.enum(invitationStatuses).optional() });

export const invitationTokenBody = z.object({ token: tokenField });

export const activeOrganizationBody = z.object({ org_id: z.uuid('must be a UUID').nullable().describe('An organisation of the caller, or null for none.') });
