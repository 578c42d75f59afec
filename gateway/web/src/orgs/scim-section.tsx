import type { components } from '@latchkey/client';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { CopyButton } from '../components/copy-button';
import { formatDate } from '../components/dates';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import type { Organization, OrganizationRole } from './organization';
import { RoleSelect } from './role-select';

type ScimToken = components['schemas']['ScimToken'];
type ScimGroupRole = components['schemas']['ScimGroupRole'];

/**
 * docs/scim.md, for members with scim:manage: the base URL and bearer
 * tokens to give the identity provider, when it last called, and which
 * role each of its groups gives its members.
 */
export function ScimSection(props: { org: Organization; roles: readonly OrganizationRole[] | undefined }) {
  const [tokens, setTokens] = useState<ScimToken[] | undefined>();
  const [groups, setGroups] = useState<{ items: ScimGroupRole[]; truncated: boolean } | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const load = useCallback(async () => {
    try {
      const path = { params: { path: { org_id: props.org.id } } };
      const [tokenList, groupList] = await Promise.all([unwrap(api.GET('/v0/orgs/{org_id}/scim/tokens', path)), unwrap(api.GET('/v0/orgs/{org_id}/scim/groups', path))]);
      setTokens(tokenList.items);
      setGroups(groupList);
      setLoadError(undefined);
    } catch (error) {
      if (error instanceof ApiError) setLoadError(error);
      else throw error;
    }
  }, [props.org.id]);
  useEffect(() => void load(), [load]);
  // The gateway serves this app at PUBLIC_APP_URL, the origin /scim/v2 is under.
  const baseUrl = `${window.location.origin}/scim/v2`;
  const lastSync = tokens
    ?.map((token) => token.last_used_at)
    .filter((used): used is string => used !== null)
    .sort()
    .at(-1);
  return (
    <section aria-labelledby="org-scim-title">
      <h2 id="org-scim-title">SCIM provisioning</h2>
      <dl class="facts copyable">
        <dt>SCIM base URL</dt>
        <dd>
          <code>{baseUrl}</code> <CopyButton text={baseUrl} label="Copy the SCIM base URL" />
        </dd>
        {tokens ? (
          <>
            <dt>Last sync</dt>
            <dd>{lastSync ? formatDate(lastSync) : 'Never'}</dd>
          </>
        ) : null}
      </dl>
      <ProblemMessage error={loadError} />
      {tokens && groups ? (
        <>
          <ScimTokens org={props.org} tokens={tokens} onChanged={load} />
          <ScimGroups org={props.org} roles={props.roles} groups={groups.items} truncated={groups.truncated} onChanged={load} />
        </>
      ) : loadError ? null : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}

function ScimTokens(props: { org: Organization; tokens: ScimToken[]; onChanged: () => Promise<void> }) {
  const [description, setDescription] = useState('');
  const [issued, setIssued] = useState<string | undefined>();
  const create = useAction();
  const revoke = useAction();
  const path = { params: { path: { org_id: props.org.id } } };
  return (
    <>
      <h3>Tokens</h3>
      {issued ? (
        <Notice>
          Your new token, shown this once: paste it into the identity provider now. <code>{issued}</code> <CopyButton text={issued} label="Copy the new SCIM token" />
        </Notice>
      ) : null}
      <ProblemMessage error={revoke.error} />
      {props.tokens.length === 0 ? (
        <p>No SCIM token yet.</p>
      ) : (
        <ul class="item-list" aria-label="SCIM tokens">
          {props.tokens.map((token) => (
            <li key={token.id}>
              <strong>{token.description || 'No description'}</strong>
              <span class="meta">
                Created {formatDate(token.created_at)}; {token.last_used_at ? `last used ${formatDate(token.last_used_at)}` : 'never used'}
              </span>
              <button
                type="button"
                class="danger"
                disabled={revoke.busy}
                onClick={() => {
                  if (!window.confirm('Revoke this token? The identity provider’s calls with it fail at once.')) return;
                  void revoke.run(async () => {
                    await unwrap(api.DELETE('/v0/orgs/{org_id}/scim/tokens/{token_id}', { params: { path: { org_id: props.org.id, token_id: token.id } } }));
                    await props.onChanged();
                  });
                }}
              >
                Revoke <span class="visually-hidden">the token {token.description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ProblemMessage error={create.error} />
      <Form
        label="New SCIM token"
        busy={create.busy}
        submit="Create token"
        onSubmit={() =>
          void create.run(async () => {
            const created = await unwrap(api.POST('/v0/orgs/{org_id}/scim/tokens', { ...path, body: { description } }));
            setIssued(created.token);
            setDescription('');
            await props.onChanged();
          })
        }
      >
        <Field label="Description" name="description" value={description} onValue={setDescription} hint="Which identity provider uses it, such as Okta." error={create.error} />
      </Form>
    </>
  );
}

function ScimGroups(props: { org: Organization; roles: readonly OrganizationRole[] | undefined; groups: ScimGroupRole[]; truncated: boolean; onChanged: () => Promise<void> }) {
  const action = useAction();
  // A group never gives owner (docs/scim.md): an owner hands it out.
  const mappable = props.roles?.filter((role) => role.name !== 'owner');
  return (
    <>
      <h3>Groups</h3>
      <p>The identity provider’s groups. Its people in a group with a role hold that role; in none, member.</p>
      <ProblemMessage error={action.error} />
      {props.groups.length === 0 ? (
        <p>The identity provider has pushed no group yet.</p>
      ) : (
        <ul class="item-list" aria-label="SCIM groups">
          {props.groups.map((group) => (
            <li key={group.id}>
              <strong>{group.display_name}</strong>
              <span class="meta">
                {group.member_count} {group.member_count === 1 ? 'member' : 'members'}; changed {formatDate(group.updated_at)}
              </span>
              {mappable ? (
                <RoleSelect
                  label="Role"
                  labelDetail={`of the group ${group.display_name}`}
                  roles={mappable}
                  callerRole={props.org.role}
                  value={group.role ?? ''}
                  noneLabel="No role"
                  onValue={(role) =>
                    void action.run(async () => {
                      await unwrap(
                        api.PATCH('/v0/orgs/{org_id}/scim/groups/{group_id}', {
                          params: { path: { org_id: props.org.id, group_id: group.id } },
                          body: { role: role === '' ? null : role },
                        }),
                      );
                      await props.onChanged();
                    })
                  }
                />
              ) : (
                <span class="meta">{group.role ?? 'No role'}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.truncated ? <p>Only the first 1,000 groups by name are listed.</p> : null}
    </>
  );
}
