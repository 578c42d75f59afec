import { randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import type pg from 'pg';
import type { orgsV1 } from '@latchkey/contracts';
import { withTransaction } from '@latchkey/db';
import { eventTypes } from '@latchkey/domain-events';
import { checkTarget, EgressRefusedError, type EgressPolicy } from '@latchkey/egress-guard';
import { AppError, type FieldError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { sealTo } from '@latchkey/secret-box';
import type { OrgsDeps } from './orgs-deps';
import { actingMember } from './membership-store';
import { actorOfChange, recordOrgAudit } from './org-audit-log';
import { checkId, refuse } from './org-fields';

export const WEBHOOKS_MANAGE = 'webhooks:manage';
/** Endpoints one organisation may have: what a member with webhooks:manage can make it keep and fan out to. */
export const MAX_WEBHOOKS = 20;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;
const MAX_EVENTS = 50;
/** Standard Webhooks asks for 24 to 64 bytes of secret; 32 is the HMAC-SHA256 block's half, plenty. */
const SECRET_BYTES = 32;
/** How long a rotated-out secret keeps signing beside its successor (docs/api.md, "Webhooks"). */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The events an endpoint may subscribe to: the organisations' (docs/events.asyncapi.yaml), one catalogue for both. */
export const webhookEventTypes: readonly string[] = eventTypes.filter((type) => type.startsWith('org.'));

/** What the webhook operations need beside the pool. */
export interface WebhookSettings {
  /**
   * The jobs worker's X25519 public key (WEBHOOK_SEALING_PUBLIC_KEY): secrets
   * are sealed to it, so identity keeps none it could sign with. Without it
   * no endpoint can be made or rotated.
   */
  readonly sealingKey: KeyObject | undefined;
  /** Where a URL may lead: nowhere internal in production unless WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  readonly egress: EgressPolicy;
}

interface WebhookRow {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  failing_since: Date | null;
}

// Audit entries name the URL's host only: a URL may carry a token in its path or query, and an entry cannot forget it.
const WEBHOOK_COLUMNS = 'id, url, description, events, enabled, created_at, updated_at, failing_since';

function webhookOf(row: WebhookRow): orgsV1.Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    failingSince: row.failing_since ?? undefined,
  };
}

function checkEvents(events: readonly string[]): FieldError[] {
  if (events.length < 1 || events.length > MAX_EVENTS) return [{ field: 'events', message: `must hold 1 to ${MAX_EVENTS} event types` }];
  if (new Set(events).size !== events.length) return [{ field: 'events', message: 'must name each event type once' }];
  if (events.includes('*') && events.length > 1) return [{ field: 'events', message: '"*" stands alone: it means every event type' }];
  const problems: FieldError[] = [];
  events.forEach((event, index) => {
    if (event !== '*' && !webhookEventTypes.includes(event)) {
      problems.push({ field: `events[${index}]`, message: `must be "*" or one of ${webhookEventTypes.join(', ')}` });
    }
  });
  return problems;
}

function checkDescription(description: string): FieldError[] {
  return [...description].length <= MAX_DESCRIPTION_LENGTH && !/\p{Cc}/u.test(description)
    ? []
    : [{ field: 'description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters on one line` }];
}

function checkUrlForm(url: string): FieldError[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ field: 'url', message: 'must be an absolute http or https URL' }];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return [{ field: 'url', message: 'must be an absolute http or https URL' }];
  if (parsed.username !== '' || parsed.password !== '') return [{ field: 'url', message: 'must not carry a user name or password' }];
  if (url.length > MAX_URL_LENGTH) return [{ field: 'url', message: `must be at most ${MAX_URL_LENGTH} characters` }];
  return [];
}

/**
 * Refuses a URL whose host is, or resolves to, an internal address, with
 * the address and its kind: the caller learns at once what the worker
 * would refuse on every delivery (where it checks again, on the address it
 * connects to). A host that does not resolve is the caller's mistake; a
 * resolver that does not answer is ours. Where internal addresses are
 * allowed there is nothing to refuse, and the worker resolves at each
 * attempt anyway.
 */
async function checkReachable(url: string, egress: EgressPolicy): Promise<void> {
  // Any address will do, so nothing to look up: a resolver outage must not refuse what would be accepted.
  if (egress.allowInternal) return;
  try {
    await checkTarget(url, egress);
  } catch (error) {
    if (error instanceof EgressRefusedError) {
      throw AppError.validation([{ field: 'url', message: `must not lead to an internal address: ${error.address} is ${error.reason}` }]);
    }
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA' || (error instanceof Error && error.message.endsWith('resolves to no address'))) {
      throw AppError.validation([{ field: 'url', message: 'must name a host that resolves' }]);
    }
    throw new AppError('service:unavailable', 'The URL’s host could not be looked up; try again.');
  }
}

/** `whsec_` and base64, the form Standard Webhooks libraries take; the secret sealed to the jobs worker, bound to the endpoint. */
function newSecret(settings: WebhookSettings, endpointId: string): { secret: string; sealed: Buffer } {
  if (!settings.sealingKey) throw new AppError('service:unavailable', 'Webhooks are not configured here (WEBHOOK_SEALING_PUBLIC_KEY).');
  const key = randomBytes(SECRET_BYTES);
  const secret = `whsec_${key.toString('base64')}`;
  return { secret, sealed: sealTo(settings.sealingKey, Buffer.from(secret, 'utf8'), `webhook:${endpointId}`) };
}

interface WebhookCall {
  readonly actorUserId: string;
  readonly organizationId: string;
  readonly webhookId: string;
}

/** An endpoint of this organisation, or webhook:not_found: another organisation's id is as unknown as a made-up one. */
export async function findWebhook(db: pg.ClientBase, organizationId: string, webhookId: string, lock = false): Promise<WebhookRow> {
  if (checkId(webhookId, 'webhook_id').length > 0) throw new AppError('webhook:not_found');
  const { rows } = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM identity.webhook_endpoints WHERE organization_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [organizationId, webhookId],
  );
  if (!rows[0]) throw new AppError('webhook:not_found');
  return rows[0];
}

/** Registers an endpoint (webhooks:manage) and answers its secret, this once. */
export async function createWebhook(
  deps: OrgsDeps,
  input: { readonly actorUserId: string; readonly organizationId: string; readonly url: string; readonly events: readonly string[]; readonly description: string },
  context: RequestContext,
): Promise<{ webhook: orgsV1.Webhook; secret: string }> {
  // Membership first, so that a stranger learns nothing of the organisation, nor of which addresses are refused.
  await withTransaction(deps.pool, context, (db) => actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE }));
  refuse([...checkUrlForm(input.url), ...checkEvents(input.events), ...checkDescription(input.description)]);
  await checkReachable(input.url, deps.webhooks.egress);
  const id = randomUUID();
  const { secret, sealed } = newSecret(deps.webhooks, id);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: WEBHOOKS_MANAGE });
    const { rows: counted } = await db.query<{ endpoints: number }>('SELECT count(*)::int AS endpoints FROM identity.webhook_endpoints WHERE organization_id = $1', [
      actor.organizationId,
    ]);
    if (counted[0]!.endpoints >= MAX_WEBHOOKS) throw new AppError('org:limit_reached', `An organisation has at most ${MAX_WEBHOOKS} webhook endpoints.`);
    const { rows } = await db.query<WebhookRow>(
      `INSERT INTO identity.webhook_endpoints (id, organization_id, url, description, events) VALUES ($1, $2, $3, $4, $5) RETURNING ${WEBHOOK_COLUMNS}`,
      [id, actor.organizationId, input.url, input.description, [...input.events]],
    );
    await db.query('INSERT INTO identity.webhook_secrets (id, endpoint_id, sealed) VALUES ($1, $2, $3)', [randomUUID(), id, sealed]);
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'webhook.created',
        actor: actorOfChange(input.actorUserId, context),
        target: { type: 'webhook', id },
        data: { host: new URL(input.url).host, events: [...input.events] },
      },
      context,
    );
    return { webhook: webhookOf(rows[0]!), secret };
  });
}

/** The organisation's endpoints, oldest first (webhooks:manage). */
export async function listWebhooks(deps: OrgsDeps, input: { readonly actorUserId: string; readonly organizationId: string }, context: RequestContext): Promise<orgsV1.Webhook[]> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    const { rows } = await db.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM identity.webhook_endpoints WHERE organization_id = $1 ORDER BY created_at, id`,
      [actor.organizationId],
    );
    return rows.map(webhookOf);
  });
}

/** One endpoint of the organisation (webhooks:manage). */
export async function getWebhook(deps: OrgsDeps, input: WebhookCall, context: RequestContext): Promise<orgsV1.Webhook> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    return webhookOf(await findWebhook(db, actor.organizationId, input.webhookId));
  });
}

/** Changes the fields given (webhooks:manage); a new URL is checked as at creation. */
export async function updateWebhook(
  deps: OrgsDeps,
  input: WebhookCall & { readonly url?: string; readonly events?: readonly string[]; readonly description?: string; readonly enabled?: boolean },
  context: RequestContext,
): Promise<orgsV1.Webhook> {
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { needs: WEBHOOKS_MANAGE });
    await findWebhook(db, actor.organizationId, input.webhookId);
  });
  refuse([
    ...(input.url === undefined ? [] : checkUrlForm(input.url)),
    ...(input.events === undefined ? [] : checkEvents(input.events)),
    ...(input.description === undefined ? [] : checkDescription(input.description)),
  ]);
  if (input.url !== undefined) await checkReachable(input.url, deps.webhooks.egress);
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: WEBHOOKS_MANAGE });
    const before = await findWebhook(db, actor.organizationId, input.webhookId, true);
    const { rows } = await db.query<WebhookRow>(
      `UPDATE identity.webhook_endpoints
          SET url = $3, events = $4, description = $5, enabled = $6, updated_at = date_trunc('milliseconds', now()),
              -- Enabled again, it starts afresh: its failures before do not count towards disabling it anew.
              failing_since = CASE WHEN $6 AND NOT enabled THEN NULL ELSE failing_since END
        WHERE organization_id = $1 AND id = $2
        RETURNING ${WEBHOOK_COLUMNS}`,
      [
        actor.organizationId,
        before.id,
        input.url ?? before.url,
        input.events ? [...input.events] : before.events,
        input.description ?? before.description,
        input.enabled ?? before.enabled,
      ],
    );
    const after = rows[0]!;
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'webhook.updated',
        actor: actorOfChange(input.actorUserId, context),
        target: { type: 'webhook', id: after.id },
        data: { host: new URL(after.url).host, events: after.events, enabled: after.enabled },
      },
      context,
    );
    return webhookOf(after);
  });
}

/** Removes an endpoint and its secrets (webhooks:manage). */
export async function deleteWebhook(deps: OrgsDeps, input: WebhookCall, context: RequestContext): Promise<void> {
  await withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: WEBHOOKS_MANAGE });
    const endpoint = await findWebhook(db, actor.organizationId, input.webhookId, true);
    await db.query('DELETE FROM identity.webhook_endpoints WHERE id = $1', [endpoint.id]);
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'webhook.deleted',
        actor: actorOfChange(input.actorUserId, context),
        target: { type: 'webhook', id: endpoint.id },
        data: { host: new URL(endpoint.url).host },
      },
      context,
    );
  });
}

/**
 * Gives an endpoint a new secret (webhooks:manage). The current one keeps
 * signing beside it for ROTATION_OVERLAP_MS, so that receivers can switch
 * without losing a delivery; a secret rotated out earlier and still in its
 * overlap ends now, so at most two ever sign.
 */
export async function rotateWebhookSecret(
  deps: OrgsDeps,
  input: WebhookCall,
  context: RequestContext,
): Promise<{ webhook: orgsV1.Webhook; secret: string; previousExpiresAt: Date }> {
  return withTransaction(deps.pool, context, async (db) => {
    const actor = await actingMember(db, input.actorUserId, input.organizationId, { lock: true, needs: WEBHOOKS_MANAGE });
    const endpoint = await findWebhook(db, actor.organizationId, input.webhookId, true);
    const { secret, sealed } = newSecret(deps.webhooks, endpoint.id);
    await db.query('UPDATE identity.webhook_secrets SET expires_at = now() WHERE endpoint_id = $1 AND expires_at > now()', [endpoint.id]);
    const { rows } = await db.query<{ expires_at: Date }>(
      `UPDATE identity.webhook_secrets SET expires_at = now() + make_interval(secs => $2) WHERE endpoint_id = $1 AND expires_at IS NULL RETURNING expires_at`,
      [endpoint.id, ROTATION_OVERLAP_MS / 1000],
    );
    await db.query('INSERT INTO identity.webhook_secrets (id, endpoint_id, sealed) VALUES ($1, $2, $3)', [randomUUID(), endpoint.id, sealed]);
    await recordOrgAudit(
      db,
      {
        organizationId: actor.organizationId,
        action: 'webhook.secret_rotated',
        actor: actorOfChange(input.actorUserId, context),
        target: { type: 'webhook', id: endpoint.id },
      },
      context,
    );
    return { webhook: webhookOf(endpoint), secret, previousExpiresAt: rows[0]?.expires_at ?? new Date() };
  });
}
