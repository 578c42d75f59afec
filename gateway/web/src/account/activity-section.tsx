import type { ActionLog } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';
import { Link } from '../router';

const ACTIONS: Record<string, string> = { 'post:create': 'Wrote', 'post:edit': 'Edited', 'post:delete': 'Deleted' };

/** docs/api.md, "Accounts": what the account did to posts, newest first. */
export function ActivitySection() {
  const [entries, setEntries] = useState<ActionLog[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const action = useAction();
  const load = (after?: string) =>
    action.run(async () => {
      const page = await unwrap(api.GET('/v0/users/me/action-logs', { params: { query: { limit: 20, ...(after ? { cursor: after } : {}) } } }));
      setEntries((shown) => (after ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    });
  useEffect(() => {
    void load();
  }, []);
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <ProblemMessage error={action.error} />
      {entries.length === 0 ? <p>Nothing yet.</p> : null}
      <ul class="item-list" aria-label="Your activity">
        {entries.map((entry) => (
          <li key={entry.id}>
            {ACTIONS[entry.action] ?? entry.action}{' '}
            {entry.action === 'post:delete' ? 'a post' : <Link href={`/posts/${entry.resource_id}`}>a post</Link>}
            <span class="meta">{formatDate(entry.created_at)}</span>
          </li>
        ))}
      </ul>
      {cursor ? (
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void load(cursor)}>
          More activity
        </button>
      ) : null}
    </section>
  );
}
