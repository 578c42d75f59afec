import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, unwrap } from '../api';
import { CopyButton } from '../components/copy-button';
import { formatDate } from '../components/dates';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookEndpointItem, type RevealedSecret, type WebhookEndpoint } from './webhook-endpoint';
import { WebhookEventsField } from './webhook-events-field';
import type { Organization } from './organization';

/**
 * docs/webhooks.md, for members with webhooks:manage: the endpoints the
 * organisation's events are posted to, made, changed, switched off and on,
 * given a new secret and deleted. A secret is shown once, as the API
 * answers it, and never again.
 */
export function WebhooksSection(props: { org: Organization }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | undefined>();
  const [loadError, setLoadError] = useState<ApiError | undefined>();
  const [revealed, setRevealed] = useState<RevealedSecret | undefined>();
  const load = useCallback(async () => {
    try {
      setEndpoints((await unwrap(api.GET('/v0/orgs/{org_id}/webhooks', { params: { path: { org_id: props.org.id } } }))).items);
      setLoadError(undefined);
    } catch (error) {
      if (error instanceof ApiError) setLoadError(error);
      else throw error;
    }
  }, [props.org.id]);
  useEffect(() => void load(), [load]);
  return (
    <section aria-labelledby="org-webhooks-title">
      <h2 id="org-webhooks-title">Webhooks</h2>
      <p>The organisation’s events are posted to these URLs, signed with each endpoint’s secret (Standard Webhooks): the receiver checks the signature with it.</p>
      {/* The secret of an endpoint deleted since signs nothing: it goes with the endpoint. */}
      {revealed && endpoints?.some((endpoint) => endpoint.id === revealed.endpointId) ? <SecretNotice revealed={revealed} /> : null}
      <ProblemMessage error={loadError} />
      {endpoints ? (
        <>
          {endpoints.length === 0 ? (
            <p>No endpoint yet.</p>
          ) : (
            <ul class="item-list" aria-label="Webhook endpoints">
              {endpoints.map((endpoint) => (
                <WebhookEndpointItem key={endpoint.id} org={props.org} endpoint={endpoint} onRevealed={setRevealed} onChanged={load}>
                  <WebhookDeliveries org={props.org} endpoint={endpoint} />
                </WebhookEndpointItem>
              ))}
            </ul>
          )}
          <CreateEndpoint org={props.org} onRevealed={setRevealed} onChanged={load} />
        </>
      ) : loadError ? null : (
        <p aria-busy="true">Loading…</p>
      )}
    </section>
  );
}

/** A secret the API just answered: the receiver needs it, and no page can show it again. */
function SecretNotice(props: { revealed: RevealedSecret }) {
  const { url, secret, previousExpiresAt } = props.revealed;
  return (
    <Notice>
      The secret of <code>{url}</code>, shown this once: give it to the receiver now. <code class="secret">{secret}</code> <CopyButton text={secret} label="Copy the secret" />
      {previousExpiresAt ? <> The previous secret keeps signing beside it until {formatDate(previousExpiresAt)}.</> : null}
    </Notice>
  );
}

function CreateEndpoint(props: { org: Organization; onRevealed: (revealed: RevealedSecret) => void; onChanged: () => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const action = useAction();
  return (
    <>
      <h3>New endpoint</h3>
      <ProblemMessage error={action.error} />
      <Form
        label="New webhook endpoint"
        busy={action.busy}
        submit="Create endpoint"
        onSubmit={() =>
          void action.run(async () => {
            const created = await unwrap(api.POST('/v0/orgs/{org_id}/webhooks', { params: { path: { org_id: props.org.id } }, body: { url, events, description } }));
            props.onRevealed({ endpointId: created.id, url: created.url, secret: created.secret });
            setUrl('');
            setDescription('');
            setEvents(['*']);
            await props.onChanged();
          })
        }
      >
        <Field label="URL" name="url" value={url} onValue={setUrl} hint="Where the events are posted, such as https://example.com/latchkey-webhooks." required error={action.error} />
        <Field label="Description" name="description" value={description} onValue={setDescription} hint="Optional: what receives them." error={action.error} />
        <WebhookEventsField value={events} onValue={setEvents} error={action.error} />
      </Form>
    </>
  );
}
