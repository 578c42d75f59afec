import { z } from 'zod';
import { handleField, timestamp, tokenField } from '../http/fields';
import { totpChallengeSchema } from '../sessions/session-schemas';
import { userSchema } from '../account-view/user-schema';

export const providerParams = z.object({ provider: z.string().max(32).describe('`google` or `github`.') });
export const authorizeQuery = z.object({ purpose: z.enum(['login', 'link', 'reauthenticate']).default('login') });
export type AuthorizationPurpose = z.infer<typeof authorizeQuery>['purpose'];
export const authorizationSchema = z.object({ authorization_url: z.url(), state: z.string() });
export const providerCallbackBody = z.object({
  code: z.string().min(1, 'is required').max(2048, 'is too long'),
  state: tokenField,
});
export const completeSignupBody = z.object({ pending_token: tokenField, handle: handleField });
export const unlinkBody = z.object({ provider: z.string().min(1).max(32) });

export const connectionSchema = z
  .object({ provider: z.string(), provider_user_id: z.string(), email: z.string(), linked_at: timestamp })
  .meta({ id: 'OAuthConnection' });
export const connectionListSchema = z.object({ items: z.array(connectionSchema) });
export const providerListSchema = z
  .object({ items: z.array(z.object({ id: z.enum(['google', 'github']).describe('The `{provider}` of the OAuth paths.') })) })
  .describe('The providers this installation configured, Google first.');

export const oauthLoginSchema = z.union([
  z.object({ status: z.enum(['signed_in', 'linked']), user: userSchema }),
  z.object({
    status: z.literal('pending_signup'),
    pending_token: z.string(),
    email: z.string(),
    name: z.string(),
    avatar_url: z.string(),
  }),
  totpChallengeSchema,
]);
