import { api, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { navigate } from '../router';
import { useSession } from '../session';
import type { Organization } from './organization';

/** docs/api.md, "Organisations" (org:delete, after a recent proof of identity): its roles, members and invitations go with it. */
export function DeleteOrganisationSection(props: { org: Organization }) {
  const { refresh, withRecentProof } = useSession();
  const action = useAction();
  const { org } = props;
  return (
    <section aria-labelledby="delete-org-title">
      <h2 id="delete-org-title">Delete organisation</h2>
      <p>This deletes {org.name} with its roles, members and invitations, at once. It cannot be undone.</p>
      <ProblemMessage error={action.error} />
      <button
        type="button"
        class="danger"
        disabled={action.busy}
        onClick={() => {
          if (!window.confirm(`Delete ${org.name}? This cannot be undone.`)) return;
          void action.run(async () => {
            await withRecentProof(() => unwrap(api.DELETE('/v0/orgs/{org_id}', { params: { path: { org_id: org.id } } })));
            await refresh();
            navigate('/orgs');
          });
        }}
      >
        Delete {org.name}
      </button>
    </section>
  );
}
