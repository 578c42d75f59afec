import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { navigate } from '../router';
import { useSession, type SignedInUser } from '../session';
import { allows, type Organization } from './organization';

/** What the organisation is and the caller's role in it; renaming (org:update), and leaving it, which any member may. */
export function OverviewSection(props: { org: Organization; user: SignedInUser; onChanged: () => Promise<void> }) {
  const { org, user } = props;
  const { refresh } = useSession();
  const leave = useAction();
  return (
    <section aria-labelledby="org-overview-title">
      <h2 id="org-overview-title">About</h2>
      <dl class="facts">
        <dt>Slug</dt>
        <dd>{org.slug}</dd>
        <dt>Your role</dt>
        <dd>{org.role}</dd>
        <dt>Created</dt>
        <dd>{formatDate(org.created_at)}</dd>
        <dt>This session</dt>
        <dd>{user.active_org?.id === org.id ? 'acts for it' : 'does not act for it: switch with “Acting for” at the top'}</dd>
      </dl>
      {allows(org, 'org:update') ? <Rename org={org} onChanged={props.onChanged} /> : null}
      <h3>Leave</h3>
      <p>You lose what your role here allows. Coming back takes a new invitation.</p>
      <ProblemMessage error={leave.error} />
      <button
        type="button"
        class="danger"
        disabled={leave.busy}
        onClick={() => {
          if (!window.confirm(`Leave ${org.name}?`)) return;
          void leave.run(async () => {
            await unwrap(api.DELETE('/v0/orgs/{org_id}/members/{user_id}', { params: { path: { org_id: org.id, user_id: user.id } } }));
            await refresh();
            navigate('/orgs');
          });
        }}
      >
        Leave {org.name}
      </button>
    </section>
  );
}

function Rename(props: { org: Organization; onChanged: () => Promise<void> }) {
  const [name, setName] = useState(props.org.name);
  const [slug, setSlug] = useState(props.org.slug);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  return (
    <>
      <h3>Name and slug</h3>
      <ProblemMessage error={action.error} />
      {saved ? <Notice>Saved.</Notice> : null}
      <Form
        submit="Save"
        busy={action.busy}
        label="Name and slug"
        onSubmit={() =>
          void action.run(async () => {
            setSaved(false);
            const changes = { ...(name !== props.org.name ? { name } : {}), ...(slug !== props.org.slug ? { slug } : {}) };
            await unwrap(api.PATCH('/v0/orgs/{org_id}', { params: { path: { org_id: props.org.id } }, body: changes }));
            await props.onChanged();
            setSaved(true);
          })
        }
      >
        <Field label="Name" name="name" value={name} onValue={setName} required error={action.error} />
        <Field label="Slug" name="slug" value={slug} onValue={setSlug} hint="3 to 48 of a-z, 0-9 and -, not starting or ending with -." required error={action.error} />
      </Form>
    </>
  );
}
