import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { ProblemMessage } from '../components/form';
import { SignInFirst } from '../components/layout';
import { Page } from '../components/page';
import { DeleteOrganisationSection } from '../orgs/delete-organisation-section';
import { InvitationsSection } from '../orgs/invitations-section';
import { MembersSection } from '../orgs/members-section';
import { AuditLogSection } from '../orgs/audit-log-section';
import { allows, type Organization, type OrganizationRole } from '../orgs/organization';
import { OverviewSection } from '../orgs/overview-section';
import { RolesSection } from '../orgs/roles-section';
import { ScimSection } from '../orgs/scim-section';
import { SsoSection } from '../orgs/sso-section';
import { WebhooksSection } from '../orgs/webhooks-section';
import { Link } from '../router';
import { useSession } from '../session';

/**
 * docs/api.md, "Organisations": one organisation as the caller's role there
 * sees it. Each section is shown to the roles whose permissions use it; the
 * roles are read once here, for the lists and for every choice of a role.
 */
export function OrganisationPage(props: { orgId: string }) {
  const { user, refresh } = useSession();
  const [org, setOrg] = useState<Organization | undefined>();
  const [roles, setRoles] = useState<OrganizationRole[] | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const path = { params: { path: { org_id: props.orgId } } };

  const loadRoles = useCallback(async () => setRoles((await unwrap(api.GET('/v0/orgs/{org_id}/roles', path))).items), [props.orgId]);
  const load = useCallback(async () => {
    try {
      const found = await unwrap(api.GET('/v0/orgs/{org_id}', path));
      setOrg(found);
      if (allows(found, 'members:read')) await loadRoles();
      else setRoles(undefined);
    } catch (error) {
      if (error instanceof ApiError) setLoadError(error);
      else throw error;
    }
  }, [props.orgId, loadRoles]);

  useEffect(() => {
    if (user) void load();
  }, [user?.id, load]);

  /** A change to the caller's own membership or to the organisation shows in the page and in `me` (the switcher). */
  const changed = useCallback(async () => {
    await Promise.all([load(), refresh()]);
  }, [load, refresh]);

  if (user === undefined) return <p aria-busy="true">Loading…</p>;
  if (user === null) {
    return (
      <Page title="Organisation">
        <SignInFirst />
      </Page>
    );
  }
  if (loadError) {
    return (
      <Page title={loadError.code === 'org:not_found' ? 'Organisation not found' : 'Organisation'}>
        <ProblemMessage error={loadError} />
        <Link href="/orgs">Your organisations</Link>
      </Page>
    );
  }
  if (!org) return <p aria-busy="true">Loading…</p>;
  return (
    <Page title={org.name}>
      <OverviewSection org={org} user={user} onChanged={changed} />
      {allows(org, 'members:read') && roles ? <MembersSection org={org} roles={roles} user={user} onOwnMembershipChanged={changed} /> : null}
      {allows(org, 'invitations:manage') ? <InvitationsSection org={org} roles={roles} /> : null}
      {allows(org, 'members:read') && roles ? <RolesSection org={org} roles={roles} onChanged={loadRoles} /> : null}
      {allows(org, 'sso:manage') ? <SsoSection org={org} roles={roles} onChanged={changed} /> : null}
      {allows(org, 'scim:manage') ? <ScimSection org={org} roles={roles} /> : null}
      {allows(org, 'webhooks:manage') ? <WebhooksSection org={org} /> : null}
      {allows(org, 'audit:read') ? <AuditLogSection org={org} /> : null}
      {allows(org, 'org:delete') ? <DeleteOrganisationSection org={org} /> : null}
    </Page>
  );
}
