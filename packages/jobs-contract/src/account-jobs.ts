import { z } from 'zod';

/**
 * An account is gone from identity. The worker asks posts, totp and oauth to
 * remove what they keep of it (spec part 2: posts cascade with their author).
 */
export const userDeletedJobSchema = z.object({ user_id: z.uuid() });

export type UserDeletedJob = z.infer<typeof userDeletedJobSchema>;
