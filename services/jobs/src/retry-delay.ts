/** Longest pause between two deliveries of a failing job. */
export const MAX_RETRY_DELAY_MS = 60_000;

/**
 * Exponential backoff for the redelivery after delivery number
 * `deliveryCount` (1-based) failed: base, 2 × base, 4 × base, … capped at
 * a minute, so that an SMTP server back after an outage sees the queue
 * within a minute.
 */
export function retryDelayMs(deliveryCount: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (deliveryCount - 1));
}
