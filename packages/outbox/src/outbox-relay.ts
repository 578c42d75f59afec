import pg from 'pg';
import { headers as natsHeaders, type JetStreamClient } from 'nats';
import type { Logger } from '@latchkey/telemetry';
import { topology } from '@latchkey/job-streams';
import { OUTBOX_CHANNEL } from './enqueue';

export interface OutboxRelayOptions {
  readonly pool: pg.Pool;
  /**
   * Where the relay LISTENs for new rows: a connection of its own, which
   * PgBouncer in transaction mode cannot give (DATABASE_SESSION_URL, by
   * default DATABASE_URL). Without it, or while it is away, the relay polls.
   */
  readonly listenUrl?: string | undefined;
  /** The schema whose outbox this relay empties. */
  readonly schema: string;
  readonly jetstream: JetStreamClient;
  readonly subjectPrefix: string;
  readonly logger: Logger;
  /** Rows per transaction. */
  readonly batchSize?: number;
  /** Safety net for a missed NOTIFY (for example while the listener reconnects). */
  readonly pollIntervalMs?: number;
  /** Longest pause between attempts while NATS or PostgreSQL is down. */
  readonly maxBackoffMs?: number;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
}

/**
 * Publishes outbox rows to JetStream, with the row id as `Nats-Msg-Id` so
 * that a row published twice (crash between publish and delete) is stored
 * once. Rows are deleted only after JetStream acknowledged them, so a broker
 * outage delays jobs and loses none. Replicas share the work through
 * `FOR UPDATE SKIP LOCKED`.
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly maxBackoffMs: number;
  private listener: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private draining: Promise<void> | undefined;
  private wanted = false;
  private failures = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
  }

  start(): void {
    this.running = true;
    if (this.options.listenUrl !== undefined) void this.listen(this.options.listenUrl);
    this.kick();
  }

  /** Stops after the batch in flight; rows left behind are published by the next start. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.draining;
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.removeAllListeners('notification');
      await listener.end().catch(() => undefined);
    }
  }

  /** Asks for a drain now; several asks while one runs collapse into one more pass. */
  kick(): void {
    if (!this.running) return;
    this.wanted = true;
    if (this.draining) return;
    clearTimeout(this.timer);
    this.draining = this.drainLoop().finally(() => {
      this.draining = undefined;
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.running) return;
    const delay =
      this.failures === 0 ? this.pollIntervalMs : Math.min(this.maxBackoffMs, 200 * 2 ** Math.min(this.failures, 10));
    this.timer = setTimeout(() => this.kick(), delay);
  }

  private async drainLoop(): Promise<void> {
    while (this.running && this.wanted) {
      this.wanted = false;
      try {
        const published = await this.publishBatch();
        this.failures = 0;
        if (published === this.batchSize) this.wanted = true;
      } catch (error) {
        this.failures += 1;
        // JetStream answers 503 (no responders) for a subject no stream takes: the worker, which owns the streams, has not run yet.
        const noStream = (error as { code?: unknown }).code === '503';
        this.options.logger.warn(
          { err: error, failures: this.failures },
          noStream
            ? 'outbox relay could not publish: no stream takes its jobs yet (the jobs worker creates them); will retry'
            : 'outbox relay could not publish; will retry',
        );
        return;
      }
    }
  }

  private async publishBatch(): Promise<number> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, subject, payload, headers FROM ${this.options.schema}.outbox
          ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) {
        await client.query('COMMIT');
        return 0;
      }
      const names = topology(this.options.subjectPrefix);
      await Promise.all(
        rows.map((row) => {
          const h = natsHeaders();
          for (const [key, value] of Object.entries(row.headers)) h.set(key, value);
          return this.options.jetstream.publish(names.subject(row.subject), JSON.stringify(row.payload), {
            msgID: row.id,
            headers: h,
            timeout: 5_000,
          });
        }),
      );
      await client.query(`DELETE FROM ${this.options.schema}.outbox WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async listen(url: string): Promise<void> {
    while (this.running && !this.listener) {
      const client = new pg.Client({ connectionString: url, application_name: `latchkey-${this.options.schema}-outbox` });
      try {
        client.on('notification', (message) => {
          if (message.channel === OUTBOX_CHANNEL && message.payload === this.options.schema) this.kick();
        });
        client.on('error', (error) => {
          this.options.logger.warn({ err: error }, 'outbox listener lost its connection');
          if (this.listener === client) this.listener = undefined;
          void client.end().catch(() => undefined);
          if (this.running) setTimeout(() => void this.listen(url), 1_000);
        });
        await client.connect();
        await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
        this.listener = client;
        // Rows committed while no one listened are not announced again.
        this.kick();
        if (!this.running) await this.stop();
      } catch (error) {
        await client.end().catch(() => undefined);
        this.options.logger.warn({ err: error }, 'outbox listener could not connect; polling meanwhile');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }
}
