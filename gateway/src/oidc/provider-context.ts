import type { IncomingMessage } from 'node:http';
import type { RequestContext } from '@latchkey/grpc-kit';
import type { Session } from '../sessions/session-store';

const kContext = Symbol('latchkey.oidc.requestContext');
const kSession = Symbol('latchkey.oidc.session');

type Tagged = IncomingMessage & { [kContext]?: RequestContext; [kSession]?: Session | null };

/**
 * The gateway hands a request to the provider as a bare Node request; what
 * the provider's hooks (its storage, its account lookup, the session
 * bridge) need from the gateway travels on it: the request context for
 * gRPC calls, and the Latchkey session once resolved.
 */
export function attachRequestContext(raw: IncomingMessage, context: RequestContext): void {
  (raw as Tagged)[kContext] = context;
}

export function requestContextOf(raw: IncomingMessage | undefined): RequestContext | undefined {
  return raw && (raw as Tagged)[kContext];
}

/** The request context of a request the provider serves, which the gateway always attaches. */
export function providerRequestContext(raw: IncomingMessage): RequestContext {
  const context = requestContextOf(raw);
  if (!context) throw new Error('the provider served a request without the gateway’s context');
  return context;
}

/** Remembers the Latchkey session of this request (null: none), so that it is read once per request. */
export function rememberLatchkeySession(raw: IncomingMessage, session: Session | undefined): void {
  (raw as Tagged)[kSession] = session ?? null;
}

/** The remembered session: undefined when not read yet, null when there is none. */
export function rememberedLatchkeySession(raw: IncomingMessage): Session | null | undefined {
  return (raw as Tagged)[kSession];
}
