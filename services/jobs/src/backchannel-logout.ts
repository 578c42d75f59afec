import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { signingKeyFor, type SigningKey } from '@latchkey/config';
import { EgressRefusedError, sendGuarded, type EgressPolicy } from '@latchkey/egress-guard';
import { backchannelLogoutJobSchema, jobSubjects, type BackchannelLogoutJob } from '@latchkey/jobs-contract';
import type { JobDefinition } from './job-consumer';

/** How long a client has to answer; a slow one is retried like a failing one, and delays no other. */
const DELIVERY_TIMEOUT_MS = 5_000;
/** OpenID Connect Back-Channel Logout 1.0 recommends a short life: the token is signed anew on each delivery. */
const LOGOUT_TOKEN_TTL_SECONDS = 120;
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface BackchannelLogoutDeps {
  readonly keys: readonly SigningKey[];
  readonly issuer: string;
  /**
   * Where a client's URI may lead: in production nowhere inside (loopback,
   * private, link-local, metadata, ...), so that a client's registration
   * forges no request into the platform's networks; outside it, local
   * clients on loopback are allowed.
   */
  readonly egress: EgressPolicy;
}

/**
 * Identity's back-channel logout job: posts a logout token (signed with the
 * OpenID Provider's keys, `typ` logout+jwt, `sub` and `sid`) to the client's
 * `backchannel_logout_uri`. A client that does not answer 200 or 204 is
 * retried with the worker's backoff; one job per client and session, so a
 * client that is down delays only itself (docs/oidc.md, "Logout").
 */
export function backchannelLogoutJob(deps: BackchannelLogoutDeps): JobDefinition<BackchannelLogoutJob> {
  return {
    name: 'backchannel_logout',
    subject: jobSubjects.backchannelLogout,
    schema: backchannelLogoutJobSchema,
    async handle(job, context) {
      const logoutToken = await signLogoutToken(deps, job);
      let status: number;
      try {
        // Resolved once and checked, then sent to the checked address: no DNS rebinding between the two.
        ({ status } = await sendGuarded(
          job.backchannel_logout_uri,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ logout_token: logoutToken }).toString(),
            signal: AbortSignal.any([context.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
          },
          deps.egress,
        ));
      } catch (error) {
        if (!(error instanceof EgressRefusedError)) throw error;
        context.logger.warn({ client_id: job.client_id, reason: error.message }, 'back-channel logout URI refused');
        return 'refused';
      }
      if (status !== 200 && status !== 204) {
        throw new Error(`client ${job.client_id} answered the back-channel logout with ${status}`);
      }
      context.logger.info({ client_id: job.client_id }, 'client told that a session ended');
      return 'completed';
    },
    redactForDeadLetter: (payload) => payload,
  };
}

async function signLogoutToken(deps: BackchannelLogoutDeps, job: BackchannelLogoutJob): Promise<string> {
  const key = signingKeyFor(deps.keys, job.signing_alg) ?? signingKeyFor(deps.keys, 'EdDSA');
  if (!key) throw new Error('no key signs logout tokens');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: job.session_id, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' })
    .setIssuer(deps.issuer)
    .setAudience(job.client_id)
    .setSubject(job.user_id)
    .setIssuedAt(now)
    .setExpirationTime(now + LOGOUT_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(key.privateKey);
}
