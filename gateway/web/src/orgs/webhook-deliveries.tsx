import type { components } from '@latchkey/client';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { Notice, ProblemMessage, useAction } from '../components/form';
import type { Organization } from './organization';
import type { WebhookEndpoint } from './webhook-endpoint';

type Delivery = components['schemas']['WebhookDelivery'];

const PAGE = 20;

/** What an attempt came to, in words. */
function outcomeOf(delivery: Delivery): string {
  const answer = delivery.response_status === null ? 'no answer' : `answered ${delivery.response_status}`;
  if (delivery.status === 'succeeded') return `Delivered, ${answer}`;
  if (delivery.status === 'refused') return 'Refused: the address leads to an internal network';
  return `Failed, ${answer}`;
}

/**
 * docs/webhooks.md, "The delivery log, manual retries and test deliveries":
 * an endpoint's attempts, newest first, read when opened and page by page;
 * each message can be sent again, and a test message sent at any time.
 */
export function WebhookDeliveries(props: { org: Organization; endpoint: WebhookEndpoint }) {
  const [items, setItems] = useState<Delivery[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [queued, setQueued] = useState<string | undefined>();
  const action = useAction();
  const path = { org_id: props.org.id, id: props.endpoint.id };
  const load = (after: string | null) =>
    action.run(async () => {
      const page = await unwrap(
        api.GET('/v0/orgs/{org_id}/webhooks/{id}/deliveries', { params: { path, query: { limit: PAGE, ...(after ? { cursor: after } : {}) } } }),
      );
      setItems((before) => [...(after && before ? before : []), ...page.items]);
      setCursor(page.next_cursor);
    });
  const sendTest = () =>
    void action.run(async () => {
      await unwrap(api.POST('/v0/orgs/{org_id}/webhooks/{id}/test', { params: { path } }));
      setQueued('A test message is on its way. Refresh the log to see how it went.');
    });
  const retry = (messageId: string) =>
    void action.run(async () => {
      await unwrap(api.POST('/v0/orgs/{org_id}/webhooks/{id}/deliveries/{message_id}/retry', { params: { path: { ...path, message_id: messageId } } }));
      setQueued(`Message ${messageId} is sent again. Refresh the log to see how it went.`);
    });
  return (
    <details
      onToggle={(event) => {
        if ((event.currentTarget).open && items === undefined) void load(null);
      }}
    >
      <summary>
        Deliveries <span class="visually-hidden">to {props.endpoint.url}</span>
      </summary>
      {props.endpoint.failing_since ? <p class="meta">Every attempt has failed since {formatDate(props.endpoint.failing_since)}.</p> : null}
      <span class="button-row">
        <button type="button" class="secondary" disabled={action.busy || !props.endpoint.enabled} onClick={sendTest}>
          Send a test message <span class="visually-hidden">to {props.endpoint.url}</span>
        </button>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void load(null)}>
          Refresh <span class="visually-hidden">the deliveries to {props.endpoint.url}</span>
        </button>
      </span>
      {queued ? <Notice>{queued}</Notice> : null}
      <ProblemMessage error={action.error} />
      {items === undefined ? null : items.length === 0 ? (
        <p>No attempts yet.</p>
      ) : (
        <ul class="item-list" aria-label={`Deliveries to ${props.endpoint.url}`}>
          {items.map((delivery) => (
            <li key={delivery.id}>
              <strong>{delivery.event_type}</strong>
              {delivery.status === 'succeeded' ? <span class="badge">{outcomeOf(delivery)}</span> : <span class="badge danger">{outcomeOf(delivery)}</span>}
              <span class="meta">
                {formatDate(delivery.attempted_at)}, {delivery.duration_ms} ms; message {delivery.message_id}
              </span>
              <button type="button" class="secondary" disabled={action.busy || !props.endpoint.enabled} onClick={() => retry(delivery.message_id)}>
                Send again <span class="visually-hidden">message {delivery.message_id}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {cursor ? (
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void load(cursor)}>
          Load older attempts
        </button>
      ) : null}
    </details>
  );
}
