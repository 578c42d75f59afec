import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Session } from '../sessions/session-store';
import { acrOf } from './authentication-context';
import { rememberedLatchkeySession, rememberLatchkeySession } from './provider-context';

/** The provider's session object, as far as the bridge touches it. */
interface ProviderSession {
  uid: string;
  accountId?: string | undefined;
  loginTs?: number | undefined;
  amr?: string[] | undefined;
  acr?: string | undefined;
  authorizations?: Record<string, { sid?: string; grantId?: string; persistsLogout?: boolean }> | undefined;
  touched?: boolean;
  sidFor(clientId: string, value?: string): string | undefined;
}

/** Reads the Latchkey session of a request from its cookie. */
export type LatchkeySessionReader = (request: IncomingMessage, cookie: string | undefined) => Promise<Session | undefined>;

/**
 * Single sign-on: oidc-provider knows only its own session cookie, so each
 * time it loads its session for a request, the bridge makes it say what
 * the Latchkey session says. A signed-in browser is signed in to the
 * provider (with the session's user, proof time and methods); a browser
 * without a live Latchkey session is signed out of it, whatever the
 * provider remembered. The provider session's uid, and the `sid` it gives
 * every client, is the Latchkey session's public id: what the
 * `session.revoked` event names, so that ending a Latchkey session reaches
 * the clients it signed in to (docs/oidc.md, "Single sign-on").
 */
export function bridgeLatchkeySessions(provider: Provider, cookieName: string, read: LatchkeySessionReader): void {
  const sessions = provider.Session as unknown as {
    get(ctx: KoaContextWithOIDC): Promise<ProviderSession>;
    prototype: { ensureClientContainer(clientId: string): void; sidFor(clientId: string, value?: string): string | undefined };
  };
  const load = sessions.get.bind(sessions);
  sessions.get = async (ctx) => {
    const session = await load(ctx);
    reconcile(session, await latchkeySessionOf(ctx, cookieName, read));
    return session;
  };
  // Every client's sid is the session's uid, the Latchkey public id, instead of a random one per client.
  sessions.prototype.ensureClientContainer = function ensureClientContainer(this: ProviderSession, clientId: string) {
    this.sidFor(clientId, this.uid);
  };
  // ID tokens and codes always carry the sid (docs/oidc.md, "ID tokens"), not only for clients that ask for it.
  (provider.Client.prototype as unknown as { includeSid(): boolean }).includeSid = () => true;
}

async function latchkeySessionOf(ctx: KoaContextWithOIDC, cookieName: string, read: LatchkeySessionReader): Promise<Session | undefined> {
  const remembered = rememberedLatchkeySession(ctx.req);
  if (remembered !== undefined) return remembered ?? undefined;
  const session = await read(ctx.req, ctx.cookies.get(cookieName));
  rememberLatchkeySession(ctx.req, session);
  return session;
}

function reconcile(session: ProviderSession, latchkey: Session | undefined): void {
  if (!latchkey) {
    if (session.accountId === undefined) return;
    session.accountId = undefined;
    session.loginTs = undefined;
    session.amr = undefined;
    session.acr = undefined;
    session.authorizations = undefined;
    session.touched = true;
    return;
  }
  const loginTs = Math.floor(latchkey.authenticatedAt / 1000);
  const amr = [...latchkey.methods];
  const acr = acrOf(latchkey.methods);
  const sameSession = session.accountId === latchkey.userId && session.uid === latchkey.publicId;
  if (sameSession && session.loginTs === loginTs && session.acr === acr && sameMethods(session.amr, amr)) return;
  if (!sameSession) session.authorizations = undefined;
  session.uid = latchkey.publicId;
  session.accountId = latchkey.userId;
  session.loginTs = loginTs;
  session.amr = amr;
  session.acr = acr;
  session.touched = true;
}

function sameMethods(kept: readonly string[] | undefined, current: readonly string[]): boolean {
  return kept !== undefined && kept.length === current.length && kept.every((method, position) => method === current[position]);
}
