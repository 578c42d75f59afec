import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { SignInFirst } from '../components/layout';
import { Page } from '../components/page';
import type { Organization } from '../orgs/organization';
import { Link, navigate } from '../router';
import { useSession } from '../session';

/** docs/api.md, "Organisations": the account's organisations, and a new one. */
export function OrganisationsPage() {
  const { user } = useSession();
  if (user === undefined) return <p aria-busy="true">Loading…</p>;
  return <Page title="Organisations">{user ? <OrganisationList activeId={user.active_org?.id} /> : <SignInFirst />}</Page>;
}

function OrganisationList(props: { activeId: string | undefined }) {
  const [orgs, setOrgs] = useState<Organization[] | undefined>();
  const action = useAction();
  useEffect(() => {
    void action.run(async () => setOrgs((await unwrap(api.GET('/v0/orgs'))).items));
  }, []);
  return (
    <>
      <ProblemMessage error={action.error} />
      {orgs && orgs.length === 0 ? <p>You are not a member of any organisation yet.</p> : null}
      <ul class="item-list" aria-label="Your organisations">
        {(orgs ?? []).map((org) => (
          <li key={org.id}>
            <Link href={`/orgs/${org.id}`}>{org.name}</Link>
            {org.id === props.activeId ? <span class="badge">Acting for it</span> : null}
            <span class="meta">
              {org.slug}; your role: {org.role}
            </span>
          </li>
        ))}
      </ul>
      <CreateOrganisation />
    </>
  );
}

function CreateOrganisation() {
  const { refresh } = useSession();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const action = useAction();
  return (
    <section aria-labelledby="create-org-title">
      <h2 id="create-org-title">New organisation</h2>
      <p>You will be its owner, and can invite others by their email address.</p>
      <ProblemMessage error={action.error} />
      <Form
        submit="Create organisation"
        busy={action.busy}
        label="New organisation"
        onSubmit={() =>
          void action.run(async () => {
            const org = await unwrap(api.POST('/v0/orgs', { body: { name, slug } }));
            await refresh();
            navigate(`/orgs/${org.id}`);
          })
        }
      >
        <Field label="Name" name="name" value={name} onValue={setName} hint="Up to 100 characters." required error={action.error} />
        <Field
          label="Slug"
          name="slug"
          value={slug}
          onValue={setSlug}
          hint="Its short name in addresses and tokens: 3 to 48 of a-z, 0-9 and -, not starting or ending with -."
          required
          error={action.error}
        />
      </Form>
    </section>
  );
}
