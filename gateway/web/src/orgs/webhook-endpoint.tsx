import type { components } from '@latchkey/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import type { Organization } from './organization';
import { describeEvents } from './webhook-event-types';
import { WebhookEventsField } from './webhook-events-field';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];

/** A secret as the API answered it on creation or rotation; after a rotation, until when the replaced one signs too. */
export interface RevealedSecret {
  readonly endpointId: string;
  readonly url: string;
  readonly secret: string;
  readonly previousExpiresAt?: string;
}

/**
 * One endpoint of the webhooks section: what it receives and whether it is
 * on, and its controls. `children` is what the section adds below them.
 */
export function WebhookEndpointItem(props: {
  org: Organization;
  endpoint: WebhookEndpoint;
  onRevealed: (revealed: RevealedSecret) => void;
  onChanged: () => Promise<void>;
  children?: ComponentChildren;
}) {
  const { endpoint } = props;
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const path = { params: { path: { org_id: props.org.id, id: endpoint.id } } };
  const setEnabled = (enabled: boolean) =>
    void action.run(async () => {
      await unwrap(api.PATCH('/v0/orgs/{org_id}/webhooks/{id}', { ...path, body: { enabled } }));
      await props.onChanged();
    });
  return (
    <li>
      <strong class="secret">{endpoint.url}</strong>
      {endpoint.enabled ? <span class="badge">Enabled</span> : <span class="badge danger">Disabled</span>}
      {endpoint.description ? <span>{endpoint.description}</span> : null}
      <span class="meta">
        {describeEvents(endpoint.events)}; created {formatDate(endpoint.created_at)}
      </span>
      <ProblemMessage error={action.error} />
      {editing ? (
        <EditEndpoint org={props.org} endpoint={endpoint} onDone={() => setEditing(false)} onChanged={props.onChanged} />
      ) : (
        <span class="button-row">
          <button type="button" class="secondary" onClick={() => setEditing(true)}>
            Edit <span class="visually-hidden">the endpoint {endpoint.url}</span>
          </button>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => setEnabled(!endpoint.enabled)}>
            {endpoint.enabled ? 'Disable' : 'Enable'} <span class="visually-hidden">the endpoint {endpoint.url}</span>
          </button>
          <button
            type="button"
            class="secondary"
            disabled={action.busy}
            onClick={() => {
              if (!window.confirm(`Give ${endpoint.url} a new secret? The current one keeps signing beside it for 24 hours.`)) return;
              void action.run(async () => {
                const rotated = await unwrap(api.POST('/v0/orgs/{org_id}/webhooks/{id}/rotate-secret', path));
                props.onRevealed({ endpointId: rotated.id, url: rotated.url, secret: rotated.secret, previousExpiresAt: rotated.previous_secret_expires_at });
                await props.onChanged();
              });
            }}
          >
            Rotate the secret <span class="visually-hidden">of {endpoint.url}</span>
          </button>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() => {
              if (!window.confirm(`Delete the endpoint ${endpoint.url}? It gets no more events, and its secret is gone.`)) return;
              void action.run(async () => {
                await unwrap(api.DELETE('/v0/orgs/{org_id}/webhooks/{id}', path));
                await props.onChanged();
              });
            }}
          >
            Delete <span class="visually-hidden">the endpoint {endpoint.url}</span>
          </button>
        </span>
      )}
      {props.children}
    </li>
  );
}

function EditEndpoint(props: { org: Organization; endpoint: WebhookEndpoint; onDone: () => void; onChanged: () => Promise<void> }) {
  const [url, setUrl] = useState(props.endpoint.url);
  const [description, setDescription] = useState(props.endpoint.description);
  const [events, setEvents] = useState<string[]>(props.endpoint.events);
  const action = useAction();
  return (
    <>
      <ProblemMessage error={action.error} />
      <Form
        label={`Edit the endpoint ${props.endpoint.url}`}
        busy={action.busy}
        submit="Save"
        onSubmit={() =>
          void action.run(async () => {
            await unwrap(api.PATCH('/v0/orgs/{org_id}/webhooks/{id}', { params: { path: { org_id: props.org.id, id: props.endpoint.id } }, body: { url, events, description } }));
            await props.onChanged();
            props.onDone();
          })
        }
      >
        <Field label="URL" name="url" value={url} onValue={setUrl} required error={action.error} />
        <Field label="Description" name="description" value={description} onValue={setDescription} error={action.error} />
        <WebhookEventsField value={events} onValue={setEvents} error={action.error} />
      </Form>
      <button type="button" class="secondary" onClick={props.onDone}>
        Cancel
      </button>
    </>
  );
}
