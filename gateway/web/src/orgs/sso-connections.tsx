import type { components } from '@latchkey/client';
import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { CopyButton } from '../components/copy-button';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import { startSsoSignIn } from '../sso';
import type { Organization, OrganizationRole } from './organization';
import { RoleSelect } from './role-select';

export type SsoConnection = components['schemas']['SsoConnection'];

/** One value to paste into the identity provider, shown whole, with a button that copies it. */
function Pasteable(props: { term: string; value: string }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>
        <code>{props.value}</code> <CopyButton text={props.value} label={`Copy the ${props.term}`} />
      </dd>
    </>
  );
}

/**
 * docs/api.md, "Enterprise SSO": the organisation's connections to its
 * identity provider, what to paste into that provider, a sign-in to try
 * one, and a form for a new one.
 */
export function SsoConnections(props: { org: Organization; roles: readonly OrganizationRole[] | undefined; connections: SsoConnection[]; onChanged: () => Promise<void> }) {
  return (
    <>
      <h3>Connections</h3>
      {props.connections.length === 0 ? (
        <p>No identity provider is connected yet.</p>
      ) : (
        <ul class="item-list" aria-label="Connections">
          {props.connections.map((connection) => (
            <ConnectionItem key={connection.id} org={props.org} connection={connection} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
      <NewConnection org={props.org} roles={props.roles} onChanged={props.onChanged} />
    </>
  );
}

function ConnectionItem(props: { org: Organization; connection: SsoConnection; onChanged: () => Promise<void> }) {
  const { connection } = props;
  const action = useAction();
  const name = connection.type === 'saml' ? `SAML: ${connection.idp_entity_id ?? ''}` : `OpenID Connect: ${connection.issuer ?? ''}`;
  return (
    <li>
      <p>
        <strong>{name}</strong>
      </p>
      <dl class="facts copyable">
        <dt>Default role</dt>
        <dd>{connection.default_role}</dd>
        {connection.sp ? (
          <>
            <Pasteable term="SP entity ID" value={connection.sp.entity_id} />
            <Pasteable term="ACS URL" value={connection.sp.acs_url} />
            <Pasteable term="SP metadata URL" value={connection.sp.metadata_url} />
          </>
        ) : null}
        {connection.redirect_uri ? <Pasteable term="Redirect URI" value={connection.redirect_uri} /> : null}
      </dl>
      <ProblemMessage error={action.error} />
      <div class="button-row">
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void action.run(() => startSsoSignIn({ org_slug: props.org.slug }, `/orgs/${props.org.id}`))}>
          Test sign-in
        </button>
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={() => {
            if (!window.confirm(`Delete the connection ${name}? Its people can no longer sign in through it.`)) return;
            void action.run(async () => {
              await unwrap(api.DELETE('/v0/orgs/{org_id}/sso/connections/{id}', { params: { path: { org_id: props.org.id, id: connection.id } } }));
              await props.onChanged();
            });
          }}
        >
          Delete connection
        </button>
      </div>
    </li>
  );
}

type Kind = 'saml-metadata' | 'saml-fields' | 'oidc';

const kinds: { value: Kind; label: string }[] = [
  { value: 'saml-metadata', label: 'SAML, from the IdP’s metadata XML' },
  { value: 'saml-fields', label: 'SAML, entering its values' },
  { value: 'oidc', label: 'OpenID Connect' },
];

function NewConnection(props: { org: Organization; roles: readonly OrganizationRole[] | undefined; onChanged: () => Promise<void> }) {
  const [kind, setKind] = useState<Kind>('saml-metadata');
  const [metadata, setMetadata] = useState('');
  const [entityId, setEntityId] = useState('');
  const [ssoUrl, setSsoUrl] = useState('');
  const [certificate, setCertificate] = useState('');
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [role, setRole] = useState('member');
  const [emailAttribute, setEmailAttribute] = useState('');
  const [nameAttribute, setNameAttribute] = useState('');
  const [groupsAttribute, setGroupsAttribute] = useState('');
  const action = useAction();
  const fileId = `metadata-file-${useId()}`;

  const readFile = (event: JSX.TargetedEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0];
    if (file) void file.text().then(setMetadata);
  };

  const body = () => {
    // Empty names are left out: the connection then takes the usual attribute names (docs/sso.md).
    const given = (value: string) => (value.trim() === '' ? undefined : value.trim());
    const mapping = { email: given(emailAttribute), name: given(nameAttribute), groups: given(groupsAttribute) };
    const common = { default_role: role, attribute_mapping: mapping };
    if (kind === 'oidc') return { type: 'oidc' as const, issuer: issuer.trim(), client_id: clientId.trim(), client_secret: clientSecret, ...common };
    if (kind === 'saml-metadata') return { type: 'saml' as const, idp_metadata_xml: metadata, ...common };
    return { type: 'saml' as const, idp_entity_id: entityId.trim(), idp_sso_url: ssoUrl.trim(), idp_certificates: [certificate.trim()], ...common };
  };

  return (
    <>
      <h4>New connection</h4>
      <ProblemMessage error={action.error} />
      <Form
        submit="Add connection"
        busy={action.busy}
        label="New connection"
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.POST('/v0/orgs/{org_id}/sso/connections', { params: { path: { org_id: props.org.id } }, body: body() }));
            setMetadata('');
            setClientSecret('');
            await props.onChanged();
          })
        }
      >
        <fieldset>
          <legend>Identity provider</legend>
          {kinds.map((option) => (
            <label key={option.value} class="switch">
              <input type="radio" name="connection-kind" value={option.value} checked={kind === option.value} onChange={() => setKind(option.value)} /> {option.label}
            </label>
          ))}
        </fieldset>
        {kind === 'saml-metadata' ? (
          <>
            <div class="field">
              <label for={fileId}>Metadata file</label>
              <input id={fileId} type="file" accept=".xml,application/xml,text/xml,application/samlmetadata+xml" onChange={readFile} />
            </div>
            <Field label="IdP metadata XML" name="idp_metadata_xml" multiline value={metadata} onValue={setMetadata} hint="Choose the file above, or paste the XML." required error={action.error} />
          </>
        ) : null}
        {kind === 'saml-fields' ? (
          <>
            <Field label="IdP entity ID" name="idp_entity_id" value={entityId} onValue={setEntityId} required error={action.error} />
            <Field label="IdP sign-in URL" name="idp_sso_url" value={ssoUrl} onValue={setSsoUrl} hint="Its HTTP-Redirect single sign-on URL." required error={action.error} />
            <Field label="IdP signing certificate" name="idp_certificates" multiline value={certificate} onValue={setCertificate} hint="PEM, or base64 DER." required error={action.error} />
          </>
        ) : null}
        {kind === 'oidc' ? (
          <>
            <Field label="Issuer" name="issuer" value={issuer} onValue={setIssuer} hint="The provider’s issuer URL, such as https://login.example.com." required error={action.error} />
            <Field label="Client ID" name="client_id" value={clientId} onValue={setClientId} required error={action.error} />
            <Field label="Client secret" name="client_secret" type="password" autoComplete="off" value={clientSecret} onValue={setClientSecret} required error={action.error} />
          </>
        ) : null}
        {props.roles ? (
          <RoleSelect label="Default role" roles={props.roles} callerRole={props.org.role} value={role} onValue={setRole} />
        ) : (
          <Field label="Default role" name="default_role" value={role} onValue={setRole} required error={action.error} />
        )}
        <fieldset>
          <legend>Attribute mapping (optional)</legend>
          <Field label="Email attribute" name="email" value={emailAttribute} onValue={setEmailAttribute} hint="Empty: email, mail and the usual URIs." />
          <Field label="Name attribute" name="name" value={nameAttribute} onValue={setNameAttribute} />
          <Field label="Groups attribute" name="groups" value={groupsAttribute} onValue={setGroupsAttribute} />
        </fieldset>
      </Form>
    </>
  );
}
