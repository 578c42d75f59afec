import { useId } from 'preact/hooks';
import type { ApiError } from '../api';
import { webhookEventTypes } from './webhook-event-types';

/**
 * Which events an endpoint gets: "All events" (`["*"]`, which also takes
 * types added later) or the types ticked. None ticked is sent as it is,
 * and the API's 400 shows here.
 */
export function WebhookEventsField(props: { value: readonly string[]; onValue: (events: string[]) => void; error: ApiError | undefined }) {
  const errorId = `events-error-${useId()}`;
  const all = props.value.includes('*');
  // The API names the list (`events`) or one entry of it (`events[2]`).
  const message = Object.entries(props.error?.fields ?? {}).find(([field]) => field === 'events' || field.startsWith('events['))?.[1];
  const toggle = (type: string, on: boolean) => props.onValue(on ? webhookEventTypes.map((item) => item.type).filter((item) => item === type || props.value.includes(item)) : props.value.filter((item) => item !== type));
  return (
    <fieldset aria-describedby={message ? errorId : undefined}>
      <legend>Events</legend>
      <label class="switch">
        <input type="checkbox" checked={all} onChange={(event) => props.onValue(event.currentTarget.checked ? ['*'] : [])} /> All events
      </label>
      <p class="hint">Also the event types added later.</p>
      {webhookEventTypes.map(({ type, summary }) => (
        <label key={type} class="switch event-choice">
          <input type="checkbox" checked={all || props.value.includes(type)} disabled={all} onChange={(event) => toggle(type, event.currentTarget.checked)} />
          <span>
            <code>{type}</code> <span class="hint">{summary}</span>
          </span>
        </label>
      ))}
      {message ? (
        <p class="field-error" id={errorId}>
          {message}
        </p>
      ) : null}
    </fieldset>
  );
}
