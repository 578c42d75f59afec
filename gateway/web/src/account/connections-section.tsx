import type { Connection } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';
import { providers as knownProviders, startProviderFlow, useConfiguredProviders } from '../oauth';
import { useSession } from '../session';

/** docs/api.md, "Sign-in with a provider (OAuth)": link another provider, or unlink one. */
export function ConnectionsSection() {
  const { refresh, withRecentProof } = useSession();
  const [connections, setConnections] = useState<Connection[]>([]);
  const action = useAction();
  const configured = useConfiguredProviders();
  const load = async () => setConnections((await unwrap(api.GET('/v0/auth/oauth/connections'))).items);
  useEffect(() => {
    void action.run(load);
  }, []);
  const linked = new Set(connections.map((connection) => connection.provider));
  // A provider the installation no longer configures still shows while linked, so that it can be unlinked.
  const providers = knownProviders.filter((provider) => linked.has(provider.id) || configured.some((candidate) => candidate.id === provider.id));
  if (providers.length === 0) return null;
  return (
    <section aria-labelledby="connections-title">
      <h2 id="connections-title">Connected accounts</h2>
      <ProblemMessage error={action.error} />
      <ul class="item-list" aria-label="Connected accounts">
        {providers.map((provider) => {
          const connection = connections.find((candidate) => candidate.provider === provider.id);
          return (
            <li key={provider.id}>
              <strong>{provider.name}</strong>
              {connection ? (
                <>
                  <span class="meta">
                    {connection.email ?? connection.provider_user_id}, linked {formatDate(connection.linked_at)}
                  </span>
                  <button
                    type="button"
                    class="danger"
                    disabled={action.busy}
                    onClick={() =>
                      void action.run(async () => {
                        await withRecentProof(() => unwrap(api.POST('/v0/auth/oauth/connections/unlink', { body: { provider: provider.id } })));
                        await load();
                        await refresh();
                      })
                    }
                  >
                    Unlink {provider.name}
                  </button>
                </>
              ) : (
                <button
                  type="button"
                  disabled={action.busy || linked.has(provider.id)}
                  onClick={() =>
                    void action.run(() =>
                      withRecentProof(async () => {
                        await startProviderFlow(provider.id, 'link', '/account');
                      }),
                    )
                  }
                >
                  Link {provider.name}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
