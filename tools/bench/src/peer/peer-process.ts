import { startBenchChild } from '../child-scripts';
import { mapConcurrently, type SeededUser } from '../seed';
import { peerServerReadySchema, type PeerServerConfig } from './peer-messages';

/** The session cookie of the peer (Better Auth's default name). */
export const PEER_SESSION_COOKIE = 'better-auth.session_token';

export interface PeerUser {
  readonly email: string;
  readonly password: string;
  /** The value of the peer's session cookie from a sign-in. */
  readonly cookie: string;
}

export interface RunningPeer {
  readonly url: string;
  readonly pid: number;
  readonly users: readonly PeerUser[];
  stop(): Promise<void>;
}

/** The peer's sign-in and sign-up check the Origin header against its base URL, as a browser sends it. */
export function peerJsonHeaders(url: string): Record<string, string> {
  return { 'content-type': 'application/json', origin: url };
}

async function postJson(url: string, path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: peerJsonHeaders(url), body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`peer ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response;
}

function peerCookieOf(response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const value = line.startsWith(`${PEER_SESSION_COOKIE}=`) ? line.slice(PEER_SESSION_COOKIE.length + 1).split(';')[0] : undefined;
    if (value) return value;
  }
  throw new Error('the peer set no session cookie');
}

/**
 * Starts the peer (better-auth-server.ts) in its own process and gives it the
 * bench's accounts: the same emails and passwords, signed up and signed in
 * through its HTTP API, as the seeding does with the gateway.
 */
export async function launchPeer(
  config: Omit<PeerServerConfig, 'type'>,
  users: readonly Pick<SeededUser, 'email' | 'password'>[],
  concurrency: number,
): Promise<RunningPeer> {
  const server = startBenchChild('peer/better-auth-server.js');
  try {
    const ready = server.receive(peerServerReadySchema, 60_000);
    server.child.send({ type: 'start', ...config } satisfies PeerServerConfig);
    const url = `http://127.0.0.1:${(await ready).port}`;
    const seeded = await mapConcurrently(users.length, concurrency, async (index) => {
      const { email, password } = users[index] as Pick<SeededUser, 'email' | 'password'>;
      await postJson(url, '/api/auth/sign-up/email', { email, password, name: `bench ${index}` });
      return { email, password, cookie: peerCookieOf(await postJson(url, '/api/auth/sign-in/email', { email, password })) };
    });
    return { url, pid: server.pid, users: seeded, stop: () => server.stop() };
  } catch (error) {
    await server.stop(1_000);
    throw error;
  }
}
