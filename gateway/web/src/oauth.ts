import { api, unwrap } from './api';

export const providers = [
  { id: 'google', name: 'Google' },
  { id: 'github', name: 'GitHub' },
] as const;
export type ProviderId = (typeof providers)[number]['id'];
export type OAuthPurpose = 'login' | 'link' | 'reauthenticate';

/** What the callback page needs to finish a flow this tab started. */
export interface PendingFlow {
  readonly provider: ProviderId;
  readonly purpose: OAuthPurpose;
  /** Where to go when it is done. */
  readonly returnTo: string;
}

const FLOW_KEY = 'latchkey.oauth';

/**
 * Sends the browser to the provider. The gateway sets the binding cookie
 * with the state; the provider comes back to `/oauth/{provider}/callback`
 * (the redirect URI registered with it), which finishes the flow.
 */
export async function startProviderFlow(provider: ProviderId, purpose: OAuthPurpose, returnTo: string): Promise<void> {
  const { authorization_url } = await unwrap(api.GET('/v0/auth/oauth/{provider}/authorize', { params: { path: { provider }, query: { purpose } } }));
  sessionStorage.setItem(FLOW_KEY, JSON.stringify({ provider, purpose, returnTo } satisfies PendingFlow));
  window.location.assign(authorization_url);
}

/** The flow this tab started, used up by reading it. */
export function takePendingFlow(provider: string): PendingFlow | undefined {
  const raw = sessionStorage.getItem(FLOW_KEY);
  sessionStorage.removeItem(FLOW_KEY);
  if (!raw) return undefined;
  const flow = JSON.parse(raw) as PendingFlow;
  return flow.provider === provider ? flow : undefined;
}
