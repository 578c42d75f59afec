import type { paths } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { formatDate } from '../components/dates';
import { Field, Form, ProblemMessage, useAction } from '../components/form';
import type { Organization } from './organization';

type AuditLogPage = paths['/v0/orgs/{org_id}/audit-log']['get']['responses'][200]['content']['application/json'];
type AuditEntry = AuditLogPage['items'][number];

const PAGE_SIZE = 50;

/** The filters as the list and the export take them: empty ones left out, times in UTC. */
interface AuditFilter {
  readonly action?: string;
  readonly actor_id?: string;
  readonly since?: string;
  readonly until?: string;
}

/** A `datetime-local` value, in the reader's time zone, as the API's RFC 3339 UTC; undefined when empty. */
function utcOf(local: string): string | undefined {
  return local === '' ? undefined : new Date(local).toISOString();
}

/** The export's URL for the filter's time bounds: the export takes no action or actor (docs/audit.md), so that a downloaded file is a checkable stretch of the chain. */
function exportHref(orgId: string, filter: AuditFilter): string {
  const bounds = new URLSearchParams();
  if (filter.since) bounds.set('since', filter.since);
  if (filter.until) bounds.set('until', filter.until);
  const query = bounds.toString();
  return `/v0/orgs/${encodeURIComponent(orgId)}/audit-log/export${query ? `?${query}` : ''}`;
}

/**
 * docs/audit.md, for members with audit:read: the organisation's audit
 * log newest first, a page at a time, filtered by action, actor and time;
 * and its export as NDJSON for the filter's time bounds.
 */
export function AuditLogSection(props: { org: Organization }) {
  const { org } = props;
  const [action, setAction] = useState('');
  const [actorId, setActorId] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [filter, setFilter] = useState<AuditFilter>({});
  const [entries, setEntries] = useState<AuditEntry[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const load = useAction();

  const fetchPage = (applied: AuditFilter, after: string | undefined) =>
    load.run(async () => {
      const query = { limit: PAGE_SIZE, ...applied, ...(after ? { cursor: after } : {}) };
      const page = await unwrap(api.GET('/v0/orgs/{org_id}/audit-log', { params: { path: { org_id: org.id }, query } }));
      setEntries((shown) => (after && shown ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    });
  useEffect(() => {
    void fetchPage(filter, undefined);
  }, [org.id, filter]);

  const apply = () =>
    setFilter({
      ...(action.trim() ? { action: action.trim() } : {}),
      ...(actorId.trim() ? { actor_id: actorId.trim() } : {}),
      ...(since ? { since: utcOf(since) } : {}),
      ...(until ? { until: utcOf(until) } : {}),
    });

  return (
    <section aria-labelledby="org-audit-title">
      <h2 id="org-audit-title">Audit log</h2>
      <p>Every change to the organisation and every sign-in of its members: who, from where, and when. Entries are never changed or deleted.</p>
      <Form label="Filter the audit log" busy={load.busy} submit="Filter" onSubmit={apply}>
        <Field label="Action" name="action" value={action} onValue={setAction} hint="Such as org.member.added or auth.sign_in; empty for every action." error={load.error} />
        <Field label="Actor ID" name="actor_id" value={actorId} onValue={setActorId} hint="The ID of the account, SCIM token or operator that acted." error={load.error} />
        <Field label="Since" name="since" type="datetime-local" value={since} onValue={setSince} hint="Entries written at or after this time, in your time zone." error={load.error} />
        <Field label="Until" name="until" type="datetime-local" value={until} onValue={setUntil} hint="Entries written before this time." error={load.error} />
      </Form>
      <p>
        <a class="button" href={exportHref(org.id, filter)} download={`audit-log-${org.slug}.ndjson`}>
          Export as NDJSON
        </a>{' '}
        <span class="meta">Every entry between the filter’s since and until, oldest first, with the hashes that show that none was changed, removed or moved.</span>
      </p>
      <ProblemMessage error={load.error} />
      {entries === undefined ? (
        load.error ? null : <p aria-busy="true">Loading…</p>
      ) : entries.length === 0 ? (
        <p>No entries match.</p>
      ) : (
        <ul class="item-list" aria-label="Audit log entries" aria-busy={load.busy}>
          {entries.map((entry) => (
            <AuditEntryItem key={entry.id} entry={entry} />
          ))}
        </ul>
      )}
      {cursor ? (
        <button type="button" class="secondary" disabled={load.busy} onClick={() => void fetchPage(filter, cursor)}>
          Load more
        </button>
      ) : null}
    </section>
  );
}

function AuditEntryItem(props: { entry: AuditEntry }) {
  const { entry } = props;
  const details = Object.entries(entry.data).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  return (
    <li>
      <strong>{entry.action}</strong>
      <span class="meta">
        {formatDate(entry.created_at)}; by {entry.actor.type}
        {entry.actor.id ? (
          <>
            {' '}
            <code>{entry.actor.id}</code>
          </>
        ) : null}
        ; {entry.target.type} <code>{entry.target.id}</code>
      </span>
      {entry.ip || entry.user_agent ? (
        <span class="meta">
          From {entry.ip || 'an unknown address'}
          {entry.user_agent ? `, ${entry.user_agent}` : ''}
        </span>
      ) : null}
      {details.length > 0 ? <span class="meta">{details.join('; ')}</span> : null}
    </li>
  );
}
