import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { ProblemMessage } from '../components/form';
import type { Organization } from './organization';
import { SsoDomains, SsoEnforcement, type OrganizationDomain } from './sso-domains';

/**
 * docs/api.md, "Enterprise SSO", for members with sso:manage: the domains
 * the organisation proves, and whether their people must sign in through
 * its identity provider.
 */
export function SsoSection(props: { org: Organization; onChanged: () => Promise<void> }) {
  const [domains, setDomains] = useState<OrganizationDomain[] | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const load = useCallback(async () => {
    try {
      setDomains((await unwrap(api.GET('/v0/orgs/{org_id}/domains', { params: { path: { org_id: props.org.id } } }))).items);
      setLoadError(undefined);
    } catch (error) {
      if (error instanceof ApiError) setLoadError(error);
      else throw error;
    }
  }, [props.org.id]);
  useEffect(() => void load(), [load]);
  /** Removing the last verified domain turns enforcement off: the organisation is read again with the domains. */
  const changed = useCallback(async () => {
    await Promise.all([load(), props.onChanged()]);
  }, [load, props.onChanged]);
  return (
    <section aria-labelledby="org-sso-title">
      <h2 id="org-sso-title">Single sign-on</h2>
      <ProblemMessage error={loadError} />
      {domains ? (
        <>
          <SsoDomains org={props.org} domains={domains} onChanged={changed} />
          <SsoEnforcement org={props.org} domains={domains} onChanged={changed} />
        </>
      ) : loadError ? null : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}
