import { z } from 'zod';
import { float64ArraySchema } from './load-messages';

/** IPC between the bench and its webhook receivers (webhook-receivers.ts). */

export const receiversStartSchema = z.object({
  type: z.literal('start'),
  /** Receivers that answer 204 to every delivery. */
  live: z.number().int().positive(),
});
export type ReceiversStart = z.infer<typeof receiversStartSchema>;

export const receiversReadySchema = z.object({
  type: z.literal('ready'),
  /** The live receivers' URLs. */
  liveUrls: z.array(z.url()),
  /** A loopback URL where nothing listens: an endpoint that is down. */
  downUrl: z.url(),
});

export const receiversQuerySchema = z.object({
  type: z.enum(['count', 'collect']),
  id: z.number().int(),
});
export type ReceiversQuery = z.infer<typeof receiversQuerySchema>;

/** `count`: distinct messages received so far, over every live receiver. */
export const receiversCountSchema = z.object({
  type: z.literal('count'),
  id: z.number().int(),
  messages: z.number().int(),
});

/** `collect`: what the receivers got, for the report. */
export const receiversCollectedSchema = z.object({
  type: z.literal('collected'),
  id: z.number().int(),
  /**
   * Per message (webhook-id), its first receipt's time less the body's
   * `timestamp` (when identity queued the event), in milliseconds.
   */
  delaysMs: float64ArraySchema,
  /** Deliveries of a message already received: at-least-once's repeats. */
  repeats: z.number().int(),
  /** Epoch milliseconds of the earliest event timestamp and of the latest first receipt. */
  firstEventAt: z.number(),
  lastReceiptAt: z.number(),
  /** Requests that were no delivery (no webhook-id, a body without a timestamp). */
  malformed: z.number().int(),
});
export type ReceiversCollected = z.infer<typeof receiversCollectedSchema>;
