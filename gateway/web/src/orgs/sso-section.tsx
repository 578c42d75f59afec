import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { ProblemMessage } from '../components/form';
import type { Organization, OrganizationRole } from './organization';
import { SsoConnections, type SsoConnection } from './sso-connections';
import { SsoDomains, SsoEnforcement, type OrganizationDomain } from './sso-domains';

/**
 * docs/api.md, "Enterprise SSO", for members with sso:manage: the domains
 * the organisation proves, its connections to its identity provider, and
 * whether their people must sign in through it.
 */
export function SsoSection(props: { org: Organization; roles: readonly OrganizationRole[] | undefined; onChanged: () => Promise<void> }) {
  const [domains, setDomains] = useState<OrganizationDomain[] | undefined>();
  const [connections, setConnections] = useState<SsoConnection[] | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const load = useCallback(async () => {
    try {
      const path = { params: { path: { org_id: props.org.id } } };
      const [domainList, connectionList] = await Promise.all([unwrap(api.GET('/v0/orgs/{org_id}/domains', path)), unwrap(api.GET('/v0/orgs/{org_id}/sso/connections', path))]);
      setDomains(domainList.items);
      setConnections(connectionList.items);
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
      {domains && connections ? (
        <>
          <SsoDomains org={props.org} domains={domains} onChanged={changed} />
          <SsoConnections org={props.org} roles={props.roles} connections={connections} onChanged={load} />
          <SsoEnforcement org={props.org} domains={domains} onChanged={changed} />
        </>
      ) : loadError ? null : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}
