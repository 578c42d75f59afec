import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths } from './schema';

type Schemas = components['schemas'];
export type User = Schemas['User'];
export type Session = Schemas['Session'];
export type Post = Schemas['Post'];
export type PostSummary = Schemas['PostSummary'];
export type Passkey = Schemas['Passkey'];
export type Connection = Schemas['OAuthConnection'];
export type ActionLog = Schemas['ActionLog'];

/** An RFC 9457 problem as the API answers every error (docs/api.md, "Errors"). */
export type Problem = Schemas['Problem'];
export type ErrorCode = Problem['code'];

/** A typed client of the Latchkey HTTP API (`/v0`), every path, body and answer from its OpenAPI document. */
export type LatchkeyClient = Client<paths>;

/**
 * A client of the gateway at `baseUrl` ('' for the page's own origin). The
 * session is a cookie: in a browser on the gateway's origin it goes along by
 * itself; a server-side client passes it in `headers` and reads Set-Cookie.
 */
export function createLatchkeyClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): LatchkeyClient {
  return createClient<paths>({ baseUrl, ...options });
}

/** Whether an error answer is the API's problem+json, and which code it carries. */
export function isProblem(value: unknown, code?: ErrorCode): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const problem = value as Partial<Problem>;
  return typeof problem.code === 'string' && typeof problem.status === 'number' && (code === undefined || problem.code === code);
}
