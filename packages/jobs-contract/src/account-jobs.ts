import { z } from 'zod';

/**
 * An account is gone from identity. The worker asks posts, totp and oauth to
 * remove what they keep of it (posts go with their author: docs/api.md, "Deleting the account").
 */
export const userDeletedJobSchema = z.object({ user_id: z.uuid() });

export type UserDeletedJob = z.infer<typeof userDeletedJobSchema>;

/**
 * A password reset proved only the mailbox: the worker removes the passkeys
 * and provider links added in the window before it (an intruder's, perhaps:
 * passkeys.v1 RemoveRecentPasskeys, oauth.v1 RemoveRecentConnections, which
 * answer the same for the same reset) and then mails the reset notice naming
 * what was removed and what remains. Queued by identity with the reset.
 */
export const passwordResetJobSchema = z.object({
  user_id: z.uuid(),
  reset_id: z.uuid(),
  /** ISO 8601: methods added after this instant and before `reset_at` go. */
  methods_added_after: z.iso.datetime({ offset: true }),
  reset_at: z.iso.datetime({ offset: true }),
});

export type PasswordResetJob = z.infer<typeof passwordResetJobSchema>;
