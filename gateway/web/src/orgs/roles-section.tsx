import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { allows, parsePermissions, type Organization, type OrganizationRole } from './organization';

const PERMISSIONS_HINT = 'One a line, or separated by commas: resource:action, such as members:read or invoices:*.';

/**
 * docs/api.md, "Organisations": the built-in roles and the organisation's
 * own; with roles:manage, making, changing and deleting its own (409
 * org:role_in_use while members or pending invitations hold one).
 */
export function RolesSection(props: { org: Organization; roles: readonly OrganizationRole[]; onChanged: () => Promise<void> }) {
  const manages = allows(props.org, 'roles:manage');
  const action = useAction();
  return (
    <section aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      <ProblemMessage error={action.error} />
      <ul class="item-list" aria-label="Roles">
        {props.roles.map((role) => (
          <RoleItem key={role.name} org={props.org} role={role} manages={manages} busy={action.busy} run={action.run} onChanged={props.onChanged} />
        ))}
      </ul>
      {manages ? <CreateRole org={props.org} onChanged={props.onChanged} /> : null}
    </section>
  );
}

function RoleItem(props: {
  org: Organization;
  role: OrganizationRole;
  manages: boolean;
  busy: boolean;
  run: ReturnType<typeof useAction>['run'];
  onChanged: () => Promise<void>;
}) {
  const { role } = props;
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { org_id: props.org.id, name: role.name } } };
  return (
    <li>
      <strong>{role.name}</strong>
      {role.built_in ? <span class="badge">Built-in</span> : null}
      <span class="meta">{role.name === 'owner' && role.built_in ? 'every permission' : role.permissions.join(', ')}</span>
      {props.manages && !role.built_in ? (
        editing ? (
          <EditPermissions org={props.org} role={role} onDone={() => setEditing(false)} onChanged={props.onChanged} />
        ) : (
          <span class="button-row">
            <button type="button" class="secondary" onClick={() => setEditing(true)}>
              Edit permissions <span class="visually-hidden">of {role.name}</span>
            </button>
            <button
              type="button"
              class="danger"
              disabled={props.busy}
              onClick={() => {
                if (!window.confirm(`Delete the role ${role.name}?`)) return;
                void props.run(async () => {
                  await unwrap(api.DELETE('/v0/orgs/{org_id}/roles/{name}', path));
                  await props.onChanged();
                });
              }}
            >
              Delete <span class="visually-hidden">the role {role.name}</span>
            </button>
          </span>
        )
      ) : null}
    </li>
  );
}

function EditPermissions(props: { org: Organization; role: OrganizationRole; onDone: () => void; onChanged: () => Promise<void> }) {
  const [permissions, setPermissions] = useState(props.role.permissions.join('\n'));
  const action = useAction();
  return (
    <>
      <ProblemMessage error={action.error} />
      <Form
        submit="Save permissions"
        busy={action.busy}
        label={`Permissions of ${props.role.name}`}
        onSubmit={() =>
          void action.run(async () => {
            const body = { permissions: parsePermissions(permissions) };
            await unwrap(api.PATCH('/v0/orgs/{org_id}/roles/{name}', { params: { path: { org_id: props.org.id, name: props.role.name } }, body }));
            await props.onChanged();
            props.onDone();
          })
        }
      >
        <Field label="Permissions" name="permissions" multiline value={permissions} onValue={setPermissions} hint={PERMISSIONS_HINT} required error={action.error} />
      </Form>
      <button type="button" class="secondary" onClick={props.onDone}>
        Cancel
      </button>
    </>
  );
}

function CreateRole(props: { org: Organization; onChanged: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState('');
  const action = useAction();
  return (
    <>
      <h3>New role</h3>
      <ProblemMessage error={action.error} />
      <Form
        submit="Create role"
        busy={action.busy}
        label="New role"
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.POST('/v0/orgs/{org_id}/roles', { params: { path: { org_id: props.org.id } }, body: { name, permissions: parsePermissions(permissions) } }));
            await props.onChanged();
            setName('');
            setPermissions('');
          })
        }
      >
        <Field label="Name" name="name" value={name} onValue={setName} hint="Up to 48 of a-z, 0-9, _ and -, starting with a letter." required error={action.error} />
        <Field label="Permissions" name="permissions" multiline value={permissions} onValue={setPermissions} hint={PERMISSIONS_HINT} required error={action.error} />
      </Form>
    </>
  );
}
