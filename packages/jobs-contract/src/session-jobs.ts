import { z } from 'zod';

/**
 * An account's credentials changed (a password reset or change, a disable,
 * a dropped password): every
 * session started under an earlier credential epoch must end. Identity
 * queues it in the transaction of the change, so that the sessions end even
 * when the gateway, which ends them at once, fails after the commit.
 */
export const sessionsRevokedJobSchema = z.object({ user_id: z.uuid(), session_epoch: z.number().int().min(1) });

export type SessionsRevokedJob = z.infer<typeof sessionsRevokedJobSchema>;
