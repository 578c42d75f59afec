import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from './api';

export const providers = [
  { id: 'google', name: 'Google' },
  { id: 'github', name: 'GitHub' },
] as const;
export type ProviderId = (typeof providers)[number]['id'];
export type Provider = (typeof providers)[number];

let configured: Promise<Provider[]> | undefined;

/**
 * The providers this installation configured (GET /v0/auth/oauth/providers),
 * asked once per page load: buttons for the others would only fail.
 */
export function useConfiguredProviders(): Provider[] {
  const [shown, setShown] = useState<Provider[]>([]);
  useEffect(() => {
    configured ??= unwrap(api.GET('/v0/auth/oauth/providers')).then(
      ({ items }) => providers.filter((provider) => items.some((item) => item.id === provider.id)),
      () => [],
    );
    void configured.then(setShown);
  }, []);
  return shown;
}
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
