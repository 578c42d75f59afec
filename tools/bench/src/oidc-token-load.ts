import { createHash, randomBytes } from 'node:crypto';
import type { LoadJob, LoadResult } from './load-messages';

/** The bench's OpenID client, which the launched stack configures (bench-stack.ts) and an external stack must too. */
export const BENCH_OIDC_CLIENT = {
  client_id: 'bench',
  client_secret: 'bench-client-secret-not-a-secret',
  client_name: 'Bench',
  redirect_uris: ['http://bench.localhost/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  first_party: true,
} as const;

type OidcJob = LoadJob & { oidc: NonNullable<LoadJob['oidc']> };

/** A browser's cookie jar for one origin: enough for the provider's redirects. */
class Cookies {
  private readonly values = new Map<string, string>();

  constructor(sessionCookie: string) {
    this.values.set('session_id', sessionCookie);
  }

  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  absorb(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const match = /^([^=;\s]+)=([^;]*)/.exec(line);
      if (match?.[1]) this.values.set(match[1], match[2] ?? '');
    }
  }
}

const basic = `Basic ${Buffer.from(`${BENCH_OIDC_CLIENT.client_id}:${BENCH_OIDC_CLIENT.client_secret}`).toString('base64')}`;

/**
 * One authorization code for a signed-in browser of the first-party bench
 * client: the authorization request, and with prompt=consent (which
 * offline_access needs) the confirmation of the interaction and the
 * browser's return to the provider.
 */
function authorizationPath(verifier: string, offline: boolean): string {
  const query = new URLSearchParams({
    client_id: BENCH_OIDC_CLIENT.client_id,
    response_type: 'code',
    redirect_uri: BENCH_OIDC_CLIENT.redirect_uris[0],
    scope: offline ? 'openid email offline_access' : 'openid email',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('base64url'),
    ...(offline ? { prompt: 'consent' } : {}),
  });
  return `/oidc/auth?${query.toString()}`;
}

async function authorizationCode(origin: string, cookies: Cookies, verifier: string, offline: boolean): Promise<string> {
  let location = authorizationPath(verifier, offline);
  for (let hop = 0; hop < 6; hop += 1) {
    const interaction = /\/oidc\/interaction\/([^/?]+)/.exec(location);
    if (interaction?.[1]) {
      const confirmed = await fetch(`${origin}/v0/oidc/interactions/${interaction[1]}/confirm`, { method: 'POST', headers: { cookie: cookies.header() } });
      if (confirmed.status !== 200) throw new Error(`interaction confirm answered ${confirmed.status}`);
      location = ((await confirmed.json()) as { redirect_to: string }).redirect_to;
      continue;
    }
    const target = new URL(location, origin);
    if (target.pathname === '/callback') {
      const code = target.searchParams.get('code');
      if (!code) throw new Error(`the provider answered ${target.search}`);
      return code;
    }
    const response = await fetch(`${origin}${target.pathname}${target.search}`, { redirect: 'manual', headers: { cookie: cookies.header() } });
    cookies.absorb(response.headers);
    await response.arrayBuffer();
    location = response.headers.get('location') ?? '';
    if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  }
  throw new Error('too many redirects');
}

async function tokenRequest(origin: string, body: Record<string, string>): Promise<{ status: number; tokens: Record<string, string> }> {
  const response = await fetch(`${origin}/oidc/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
  const tokens = (await response.json()) as Record<string, string>;
  return { status: response.status, tokens };
}

/**
 * What one measured request answered: its status (with a note when the
 * status is right but the answer is not), and whether that was the answer
 * the mode wants.
 */
interface Answer {
  readonly status: number | string;
  readonly ok: boolean;
}

/**
 * A warmed browser's authorization request: a single GET that redirects
 * (303, or 302) straight to the client's redirect_uri with a code. A
 * redirect anywhere else, such as to an interaction, is a failure.
 */
async function codeRedirect(origin: string, cookies: Cookies, verifier: string): Promise<Answer> {
  const response = await fetch(`${origin}${authorizationPath(verifier, false)}`, { redirect: 'manual', headers: { cookie: cookies.header() } });
  cookies.absorb(response.headers);
  await response.arrayBuffer();
  const location = response.headers.get('location');
  if ((response.status !== 303 && response.status !== 302) || !location) return { status: response.status, ok: false };
  const target = new URL(location, origin);
  const toClient = `${target.origin}${target.pathname}` === BENCH_OIDC_CLIENT.redirect_uris[0] && target.searchParams.has('code');
  return toClient ? { status: response.status, ok: true } : { status: `${response.status} to ${target.pathname}`, ok: false };
}

/** RFC 7662 introspection of the browser's own access token, as the bench client: it must be active. */
async function introspection(origin: string, accessToken: string): Promise<Answer> {
  const response = await fetch(`${origin}/oidc/token/introspection`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: accessToken }).toString(),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, ok: false };
  const answer = JSON.parse(text) as { active?: unknown };
  return answer.active === true ? { status: response.status, ok: true } : { status: `${response.status} inactive`, ok: false };
}

async function userinfo(origin: string, accessToken: string): Promise<Answer> {
  const response = await fetch(`${origin}/oidc/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  await response.arrayBuffer();
  return { status: response.status, ok: response.status === 200 };
}

/**
 * The OpenID Provider's hot paths, which single-use codes and rotating
 * refresh tokens keep out of autocannon's fixed requests: `connections`
 * browsers of the seeded users, each in a loop until the time is up.
 * - `code`: an authorization code (not measured), then its exchange at
 *   the token endpoint (measured).
 * - `refresh`: one refresh token first, then refresh after refresh, each
 *   with the token the last one answered (rotation, measured).
 * - `userinfo`: one access token first, then userinfo again and again.
 * - `introspect`: one access token first, then its introspection by the
 *   client again and again; each must answer `active: true`.
 * - `auth`: one authorization code through every redirect first (not
 *   measured; the browser gets the provider's cookies), then authorization
 *   request after authorization request, each a single GET answered with a
 *   redirect to the client with a code. The codes are left to expire.
 */
export async function runOidcTokenLoad(job: OidcJob): Promise<LoadResult> {
  const origin = new URL(job.url).origin;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let failures = 0;
  const count = ({ status, ok }: Answer) => {
    statusCodes[String(status)] = (statusCodes[String(status)] ?? 0) + 1;
    if (!ok) failures += 1;
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const endAt = started + job.durationSeconds * 1000;
  const measure = async <T>(work: () => Promise<T>): Promise<T> => {
    const sent = performance.now();
    try {
      return await work();
    } finally {
      latencies.push(performance.now() - sent);
    }
  };

  const browser = async (index: number) => {
    const cookies = new Cookies(job.oidc.sessionCookies[index % job.oidc.sessionCookies.length]!);
    const verifier = randomBytes(32).toString('base64url');
    const redirect = BENCH_OIDC_CLIENT.redirect_uris[0];
    const { mode } = job.oidc;
    if (mode === 'code') {
      while (performance.now() < endAt) {
        const code = await authorizationCode(origin, cookies, verifier, false);
        const answer = await measure(() => tokenRequest(origin, { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }));
        count({ status: answer.status, ok: answer.status === 200 });
      }
      return;
    }
    const code = await authorizationCode(origin, cookies, verifier, mode === 'refresh');
    if (mode === 'auth') {
      while (performance.now() < endAt) count(await measure(() => codeRedirect(origin, cookies, verifier)));
      return;
    }
    const first = await tokenRequest(origin, { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier });
    if (first.status !== 200) throw new Error(`the code exchange answered ${first.status}`);
    let refreshToken = first.tokens.refresh_token ?? '';
    const accessToken = first.tokens.access_token ?? '';
    while (performance.now() < endAt) {
      if (mode === 'refresh') {
        const answer = await measure(() => tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: refreshToken }));
        count({ status: answer.status, ok: answer.status === 200 });
        if (answer.status !== 200 || !answer.tokens.refresh_token) return;
        refreshToken = answer.tokens.refresh_token;
      } else {
        count(await measure(() => (mode === 'introspect' ? introspection(origin, accessToken) : userinfo(origin, accessToken))));
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, (_, index) => browser(index)));
  const cpu = process.cpuUsage(cpuBefore);
  return {
    durationSeconds: (performance.now() - started) / 1000,
    latenciesMs: Float64Array.from(latencies),
    non2xx: failures,
    socketErrors: 0,
    timeouts: 0,
    statusCodes,
    loaderCpuMs: (cpu.user + cpu.system) / 1000,
    loaderPeakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}
