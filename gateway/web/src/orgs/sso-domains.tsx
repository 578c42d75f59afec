import type { components } from '@latchkey/client';
import { useState } from 'preact/hooks';
import { api, isApiError, unwrap } from '../api';
import { CopyButton } from '../components/copy-button';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import type { Organization } from './organization';

export type OrganizationDomain = components['schemas']['OrganizationDomain'];

/**
 * What the verify button's refusals mean to the person who pressed it: the
 * API's titles name the rule, these say what to do next.
 */
function verifyRefusal(error: unknown): string | undefined {
  if (isApiError(error, 'org:domain_unverified')) {
    return 'The TXT record was not found (yet). Publish it at your DNS provider, wait for it to spread (minutes, sometimes hours), then verify again.';
  }
  if (isApiError(error, 'org:domain_taken')) return 'Another organisation has already verified this domain. One domain belongs to one organisation.';
  return undefined;
}

/** docs/api.md, "Enterprise SSO": the domains an organisation claims, each proved by a DNS TXT record. */
export function SsoDomains(props: { org: Organization; domains: OrganizationDomain[]; onChanged: () => Promise<void> }) {
  const [domain, setDomain] = useState('');
  const add = useAction();
  const path = { params: { path: { org_id: props.org.id } } };
  return (
    <>
      <h3>Domains</h3>
      <p>People whose email address is in a verified domain can be signed in by the organisation’s identity provider.</p>
      {props.domains.length === 0 ? (
        <p>No domains yet.</p>
      ) : (
        <ul class="item-list" aria-label="Domains">
          {props.domains.map((item) => (
            <DomainItem key={item.domain} org={props.org} domain={item} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
      <ProblemMessage error={add.error} />
      <Form
        submit="Add domain"
        busy={add.busy}
        label="Add a domain"
        onSubmit={() =>
          void add.run(async () => {
            await unwrap(api.POST('/v0/orgs/{org_id}/domains', { ...path, body: { domain } }));
            setDomain('');
            await props.onChanged();
          })
        }
      >
        <Field label="Domain" name="domain" value={domain} onValue={setDomain} hint="A domain your organisation owns, such as example.com." required error={add.error} />
      </Form>
    </>
  );
}

function DomainItem(props: { org: Organization; domain: OrganizationDomain; onChanged: () => Promise<void> }) {
  const { domain, verification } = props.domain;
  const action = useAction();
  const path = { params: { path: { org_id: props.org.id, domain } } };
  const refusal = verifyRefusal(action.error);
  return (
    <li>
      <p>
        <strong>{domain}</strong> <span class="badge">{props.domain.status === 'verified' ? 'Verified' : 'Pending'}</span>
      </p>
      {props.domain.status === 'pending' && verification ? (
        <>
          <p>Publish this TXT record at your DNS provider, then verify.</p>
          <dl class="facts copyable">
            <dt>Record name</dt>
            <dd>
              <code>{verification.name}</code> <CopyButton text={verification.name} label={`Copy the record name of ${domain}`} />
            </dd>
            <dt>Record value</dt>
            <dd>
              <code>{verification.value}</code> <CopyButton text={verification.value} label={`Copy the record value of ${domain}`} />
            </dd>
          </dl>
        </>
      ) : null}
      {refusal ? (
        <div class="problem" role="alert">
          <strong>{domain} is not verified.</strong>
          <p>{refusal}</p>
        </div>
      ) : (
        <ProblemMessage error={action.error} />
      )}
      <div class="button-row">
        {props.domain.status === 'pending' ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                await unwrap(api.POST('/v0/orgs/{org_id}/domains/{domain}/verify', path));
                await props.onChanged();
              })
            }
          >
            Verify {domain}
          </button>
        ) : null}
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={() => {
            if (!window.confirm(`Remove ${domain}? Its people can no longer sign in through single sign-on.`)) return;
            void action.run(async () => {
              await unwrap(api.DELETE('/v0/orgs/{org_id}/domains/{domain}', path));
              await props.onChanged();
            });
          }}
        >
          Remove {domain}
        </button>
      </div>
    </li>
  );
}

/** The enforce switch (PATCH /v0/orgs/{org_id} {sso_enforced}): needs a verified domain, which the API checks. */
export function SsoEnforcement(props: { org: Organization; domains: OrganizationDomain[]; onChanged: () => Promise<void> }) {
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const verified = props.domains.some((item) => item.status === 'verified');
  // What the person asked for, shown at once; the organisation as read again once the API agreed, or as it was if not.
  const [wanted, setWanted] = useState<boolean | undefined>();
  const enforced = wanted ?? props.org.sso_enforced;
  return (
    <>
      <h3>Enforcement</h3>
      <ProblemMessage error={action.error} />
      {saved ? <Notice>{props.org.sso_enforced ? 'Single sign-on is now required.' : 'Single sign-on is no longer required.'}</Notice> : null}
      <label class="switch">
        <input
          type="checkbox"
          role="switch"
          checked={enforced}
          disabled={action.busy || (!verified && !props.org.sso_enforced)}
          aria-describedby="sso-enforcement-hint"
          onChange={(event) => {
            const enforce = event.currentTarget.checked;
            setWanted(enforce);
            setSaved(false);
            void action
              .run(async () => {
                await unwrap(api.PATCH('/v0/orgs/{org_id}', { params: { path: { org_id: props.org.id } }, body: { sso_enforced: enforce } }));
                await props.onChanged();
                setSaved(true);
              })
              .finally(() => setWanted(undefined));
          }}
        />{' '}
        Require single sign-on
      </label>
      <p class="hint" id="sso-enforcement-hint">
        {verified
          ? 'When on, accounts whose email is in a verified domain sign in only through the organisation’s identity provider: their password, passkeys and Google or GitHub sign-ins are refused.'
          : 'Verify a domain first.'}
      </p>
    </>
  );
}
