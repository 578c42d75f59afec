import { z } from 'zod';
import { timestamp } from '../http/fields';
import { orgIdParams } from '../orgs/org-schemas';

/**
 * docs/api.md, "SSO connections and sign-in". The shapes only: what a
 * usable IdP, certificate or issuer is is the oauth unit's rule.
 */

const attributeMapping = z
  .object({
    email: z.string().max(256).optional().describe('Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID.'),
    name: z.string().max(256).optional(),
    groups: z.string().max(256).optional(),
  })
  .describe('Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md.');

const groupRoles = z
  .array(z.object({ group: z.string().min(1).max(256), role: z.string().min(1).max(48) }))
  .max(100)
  .describe('Roles by IdP group; the first group the person is in wins, else default_role.');

const certificate = z.string().min(1).max(16 * 1024).describe('PEM, or base64 DER as in metadata.');

export const connectionSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    type: z.enum(['saml', 'oidc']),
    default_role: z.string(),
    attribute_mapping: attributeMapping,
    group_roles: groupRoles,
    idp_entity_id: z.string().optional(),
    idp_sso_url: z.string().optional(),
    idp_certificates: z.array(z.string()).optional().describe('base64 DER; two during a rollover.'),
    allow_idp_initiated: z.boolean().optional(),
    sp_certificate: z.string().nullable().optional().describe('The SP’s encryption certificate (base64 DER), when assertions are encrypted.'),
    sp: z
      .object({ entity_id: z.string(), acs_url: z.string(), metadata_url: z.string() })
      .optional()
      .describe('For SAML: the values to paste into the IdP (docs/sso.md).'),
    issuer: z.string().optional(),
    client_id: z.string().optional(),
    redirect_uri: z.string().optional().describe('For OpenID Connect: register this at the provider.'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SsoConnection' });

export const connectionListSchema = z.object({ items: z.array(connectionSchema) });

const samlFields = {
  idp_metadata_xml: z.string().max(512 * 1024).optional().describe('The IdP’s metadata XML; or the three fields below.'),
  idp_entity_id: z.string().max(2048).optional(),
  idp_sso_url: z.string().max(2048).optional(),
  idp_certificates: z.array(certificate).max(2).optional(),
  allow_idp_initiated: z.boolean().optional(),
  sp_certificate: certificate.optional().describe('With sp_private_key: assertions are then encrypted to it, and only encrypted ones accepted.'),
  sp_private_key: z.string().max(16 * 1024).optional().describe('PEM, RSA; sealed at rest, never answered.'),
};

const common = {
  default_role: z.string().min(1).max(48).optional().describe('Default `member`.'),
  attribute_mapping: attributeMapping.optional(),
  group_roles: groupRoles.optional(),
};

export const createConnectionBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('saml'), ...samlFields, ...common }),
  z.object({
    type: z.literal('oidc'),
    issuer: z.string().min(1).max(2048),
    client_id: z.string().min(1).max(256),
    client_secret: z.string().min(1).max(2048),
    ...common,
  }),
]);

export const updateConnectionBody = z.object({
  ...samlFields,
  drop_sp_key_pair: z.boolean().optional().describe('Assertions in clear again.'),
  issuer: z.string().min(1).max(2048).optional(),
  client_id: z.string().min(1).max(256).optional(),
  client_secret: z.string().min(1).max(2048).optional(),
  ...common,
});

export const connectionParams = orgIdParams.extend({ id: z.uuid('must be a UUID') });
export const connectionIdParams = z.object({ connection_id: z.uuid('must be a UUID') });

/**
 * Where the sign-in goes in the web app once it succeeds: one of its
 * paths, never another site (no "//", no "\"); the oauth unit checks it
 * again and keeps it with the request this browser started.
 */
export const returnPathSchema = z
  .string()
  .max(512)
  // No lookahead: the OpenAPI document publishes the pattern, and clients and fuzzers read it as a plain regular expression.
  .regex(/^\/(?:[\x21-\x2e\x30-\x5b\x5d-\x7e][\x21-\x5b\x5d-\x7e]*)?$/, 'must be a path of the web app, starting with a single /');
const returnTo = { return_to: returnPathSchema.optional() };
export const startSignInBody = z.union([
  z.object({ email: z.string().min(3).max(320), ...returnTo }).strict(),
  z.object({ org_slug: z.string().min(1).max(48), ...returnTo }).strict(),
]);
export const authorizationUrlSchema = z.object({ authorization_url: z.url() });
export const discoverSignInBody = z.object({ email: z.string().min(3).max(320) }).strict();
export const discoveredSignInSchema = z.object({
  sso: z.boolean().describe('The domain is verified by an organisation with a connection: offer its SSO.'),
  enforced: z.boolean().describe('That organisation enforces SSO: send the person to the IdP, a password would be refused.'),
});

/** What the IdP posts to the ACS (SAML 2.0 Bindings §3.5.4). */
export const acsBody = z.object({
  SAMLResponse: z.string().max(512 * 1024),
  RelayState: z.string().max(80).optional(),
  /** Set by the same-site re-post page (docs/sso.md, "The browser binding"). */
  latchkey_repost: z.literal('1').optional(),
});

export const oidcCallbackQuery = z.object({
  code: z.string().max(2048).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
});
