import { z } from 'zod';
import { CLIENT_ID } from '@latchkey/oidc-clients';
import { timestamp } from '../http/fields';

export const interactionParams = z.object({
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an interaction id'),
});

export const clientIdParams = z.object({
  client_id: z.string().regex(CLIENT_ID, 'must be a client id'),
});

const clientSummary = z.object({ client_id: z.string(), client_name: z.string() });

export const interactionSchema = z
  .object({
    uid: z.string(),
    prompt: z
      .enum(['login', 'consent'])
      .describe(
        'login: the browser must sign in, or re-authenticate (reauthentication_required), or the client asked for another account than the one signed in; consent: the user allows the client.',
      ),
    client: clientSummary,
    scopes: z.array(z.string()).describe('The scopes the client asks for.'),
    reauthentication_required: z
      .boolean()
      .describe('The session must prove itself again first (prompt=login, max_age, or a client that requires multi-factor): POST /v0/auth/reauthenticate.'),
    multi_factor_required: z
      .boolean()
      .describe(
        'The client requires a multi-factor sign-in the session has not made: a passkey, or the password with a TOTP code. An account with neither must add one first.',
      ),
    consented: z
      .boolean()
      .describe('The user already allowed these scopes, or the client is first-party: nothing is left to allow; the browser goes to resume_url. Never for a device.'),
    device: z.boolean().describe('A device (a TV, a command-line tool) is being signed in, not this browser: the device flow.'),
    resume_url: z
      .url()
      .optional()
      .describe(
        'Present when nothing is left to ask: the authorization endpoint address that resumes the request, which answers the client from the Latchkey session without a page.',
      ),
  })
  .meta({ id: 'OidcInteraction' });

export const redirectSchema = z
  .object({ redirect_to: z.url().describe('Where the browser goes next: back to the authorization endpoint, which answers the client.') })
  .meta({ id: 'OidcRedirect' });

export const grantListSchema = z
  .object({
    items: z.array(z.object({ client_id: z.string(), client_name: z.string(), scopes: z.array(z.string()), created_at: timestamp })),
  })
  .meta({ id: 'OidcGrantList' });

export const deviceVerifyBody = z.object({
  user_code: z.string().min(1).max(32).describe('The code the device shows, with or without its dash, in any case.'),
});

export const deviceVerifiedSchema = z.object({ uid: z.string().describe('The interaction to confirm or deny.') }).meta({ id: 'OidcDeviceVerified' });
