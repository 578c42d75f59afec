import { z } from 'zod';

/**
 * An account is gone from identity. The worker asks posts, totp and oauth to
 * remove what they keep of it (posts go with their author: docs/api.md, "Deleting the account").
 */
export const userDeletedJobSchema = z.object({ user_id: z.uuid() });

export type UserDeletedJob = z.infer<typeof userDeletedJobSchema>;
