import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { SignJWT } from 'jose';
import { signingKeyFor, type SigningKey } from '@latchkey/config';
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
  /** In production a client's URI must not lead to this machine (loopback, link-local): no request forgery through logout. */
  readonly production: boolean;
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
      const refusal = await refusedTarget(job.backchannel_logout_uri, deps.production);
      if (refusal) {
        context.logger.warn({ client_id: job.client_id, reason: refusal }, 'back-channel logout URI refused');
        return 'refused';
      }
      const logoutToken = await signLogoutToken(deps, job);
      const response = await fetch(job.backchannel_logout_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: logoutToken }).toString(),
        redirect: 'manual',
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      });
      // The body is of no interest, but it must be read for the connection to be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (response.status !== 200 && response.status !== 204) {
        throw new Error(`client ${job.client_id} answered the back-channel logout with ${response.status}`);
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

/** Why a URI must not be called from here, or undefined when it may. */
async function refusedTarget(uri: string, production: boolean): Promise<string | undefined> {
  if (!production) return undefined;
  const host = new URL(uri).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  const inner = addresses.find((address) => /^(127\.|169\.254\.|0\.)/.test(address) || /^(::1$|::$|fe80:|::ffff:127\.)/i.test(address));
  return inner === undefined ? undefined : `it leads to ${inner}, an address of this machine or its link`;
}
