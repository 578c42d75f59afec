import { z } from 'zod';

/**
 * A Latchkey session that signed in to a client ended: the worker posts an
 * OpenID Connect Back-Channel Logout token to the client's
 * `backchannel_logout_uri`. One job per client and session, so that a
 * client that is down delays only its own (docs/oidc.md, "Logout").
 */
export const backchannelLogoutJobSchema = z.object({
  client_id: z.string().min(1),
  backchannel_logout_uri: z.url(),
  /** The account id: the logout token's `sub`. */
  user_id: z.uuid(),
  /** The session's public id: the logout token's `sid`, sent when the client asked for it or always harmlessly. */
  session_id: z.string().min(1),
  session_required: z.boolean(),
  /** The algorithm of the client's ID tokens, which its logout tokens use too. */
  signing_alg: z.enum(['RS256', 'ES256', 'EdDSA']),
});

export type BackchannelLogoutJob = z.infer<typeof backchannelLogoutJobSchema>;
