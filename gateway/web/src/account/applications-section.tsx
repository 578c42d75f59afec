import type { paths } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, isApiError, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';
import { describeScope } from '../oidc/scopes';

type Grant = paths['/v0/oidc/grants']['get']['responses'][200]['content']['application/json']['items'][number];

/** docs/oidc.md, "Consent": the applications that sign in through this account, and withdrawing one. */
export function ApplicationsSection() {
  const [grants, setGrants] = useState<Grant[] | undefined>();
  const action = useAction();
  const load = async () => {
    try {
      setGrants((await unwrap(api.GET('/v0/oidc/grants'))).items);
    } catch (error) {
      // An installation without the OpenID Provider has no such list.
      if (isApiError(error, 'route:not_found')) setGrants(undefined);
      else throw error;
    }
  };
  useEffect(() => {
    void action.run(load);
  }, []);
  if (grants === undefined && !action.error) return null;
  const revoke = (grant: Grant) =>
    action.run(async () => {
      await unwrap(api.DELETE('/v0/oidc/grants/{client_id}', { params: { path: { client_id: grant.client_id } } }));
      await load();
    });
  return (
    <section aria-labelledby="applications-title">
      <h2 id="applications-title">Allowed applications</h2>
      <ProblemMessage error={action.error} />
      {grants && grants.length === 0 ? <p>No application signs in with your account.</p> : null}
      <ul class="item-list" aria-label="Allowed applications">
        {(grants ?? []).map((grant) => (
          <li key={grant.client_id}>
            <strong>{grant.client_name}</strong>
            <span class="meta">
              {grant.scopes.map(describeScope).join('; ')}. Allowed {formatDate(grant.created_at)}.
            </span>
            <button type="button" class="danger" disabled={action.busy} onClick={() => void revoke(grant)}>
              Revoke <span class="visually-hidden">{grant.client_name}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
