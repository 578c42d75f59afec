import type { JSX } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import type { Organization } from '../orgs/organization';
import { useSession, type SignedInUser } from '../session';
import { ProblemMessage, useAction } from './form';

/**
 * docs/api.md, "Organisations": which of the account's organisations this
 * session acts for (what `me`, service tokens and applications signing in
 * through Latchkey see), or none. Shown once the account belongs to one;
 * asked again whenever the account is, so that a new, joined or left
 * organisation shows. A button makes the switch: choosing alone changes
 * nothing, so that moving through the list with the keyboard is safe.
 */
export function OrganisationSwitcher(props: { user: SignedInUser }) {
  const { refresh } = useSession();
  const id = `switcher-${useId()}`;
  const [orgs, setOrgs] = useState<Organization[]>([]);
  const active = props.user.active_org?.id ?? '';
  const [chosen, setChosen] = useState(active);
  const [switched, setSwitched] = useState('');
  const action = useAction();

  useEffect(() => {
    setChosen(active);
    unwrap(api.GET('/v0/orgs')).then(
      ({ items }) => setOrgs(items),
      () => setOrgs([]),
    );
  }, [props.user, active]);

  if (orgs.length === 0) return null;
  const switchTo = () =>
    action.run(async () => {
      const org = await unwrap(api.PUT('/v0/auth/session/org', { body: { org_id: chosen || null } }));
      setSwitched(org ? `Now acting for ${org.name}.` : 'Now acting for no organisation.');
      await refresh();
    });
  return (
    <form
      class="org-switcher"
      aria-label="Organisation"
      onSubmit={(event) => {
        event.preventDefault();
        void switchTo();
      }}
    >
      <label for={id}>Acting for</label>
      <select id={id} value={chosen} onChange={(event: JSX.TargetedEvent<HTMLSelectElement>) => setChosen(event.currentTarget.value)}>
        <option value="">No organisation</option>
        {orgs.map((org) => (
          <option key={org.id} value={org.id}>
            {org.name}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary" disabled={action.busy || chosen === active} aria-busy={action.busy}>
        Switch
      </button>
      <span class="visually-hidden" role="status">
        {switched}
      </span>
      <ProblemMessage error={action.error} />
    </form>
  );
}
