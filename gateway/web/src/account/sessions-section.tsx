import type { Session } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';

/** docs/api.md, "Sessions": where the account is signed in; end one, or every other. */
export function SessionsSection() {
  const [sessions, setSessions] = useState<Session[]>([]);
  const action = useAction();
  const load = async () => setSessions((await unwrap(api.GET('/v0/auth/sessions'))).items);
  useEffect(() => {
    void action.run(load);
  }, []);
  const end = (ids: string[]) =>
    action.run(async () => {
      for (const id of ids) await unwrap(api.DELETE('/v0/auth/sessions/{id}', { params: { path: { id } } }));
      await load();
    });
  const others = sessions.filter((session) => !session.current);
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <ProblemMessage error={action.error} />
      <ul class="item-list" aria-label="Your sessions">
        {sessions.map((session) => (
          <li key={session.id}>
            <strong>{session.user_agent || 'Unknown browser'}</strong>
            {session.current ? <span class="badge">This session</span> : null}
            <span class="meta">
              {session.ip}; signed in {formatDate(session.created_at)}; last seen {formatDate(session.last_seen_at)}
            </span>
            {session.current ? null : (
              <button type="button" class="danger" disabled={action.busy} onClick={() => void end([session.id])}>
                Sign out <span class="visually-hidden">{session.user_agent}</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      {others.length > 0 ? (
        <button type="button" class="danger" disabled={action.busy} onClick={() => void end(others.map((session) => session.id))}>
          Sign out every other session
        </button>
      ) : null}
    </section>
  );
}
