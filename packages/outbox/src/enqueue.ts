import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { RequestContext } from '@latchkey/grpc-kit';
import { injectTraceContext } from '@latchkey/telemetry';

/** The NOTIFY channel that wakes relays when a transaction commits outbox rows. */
export const OUTBOX_CHANNEL = 'latchkey_outbox';

/**
 * Writes a job into the outbox of the schema the client's search path
 * points at. Call it inside the transaction of the change that causes the
 * job: both commit or neither does. The job carries the request id of
 * `context`, so that its consumer logs under the request that caused it.
 */
export async function enqueueJob(
  client: pg.ClientBase,
  subject: string,
  payload: unknown,
  context: Pick<RequestContext, 'requestId'>,
  options: { readonly id?: string } = {},
): Promise<string> {
  const id = options.id ?? randomUUID();
  const headers: Record<string, string> = { ...injectTraceContext(), 'x-request-id': context.requestId };
  await client.query('INSERT INTO outbox (id, subject, payload, headers) VALUES ($1, $2, $3, $4)', [
    id,
    subject,
    JSON.stringify(payload),
    JSON.stringify(headers),
  ]);
  await client.query('SELECT pg_notify($1, current_schema())', [OUTBOX_CHANNEL]);
  return id;
}
