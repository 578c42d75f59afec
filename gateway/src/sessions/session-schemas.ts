import { z } from 'zod';
import { currentPasswordField, emailField, timestamp } from '../http/fields';

export const loginBody = z.object({ email: emailField, password: currentPasswordField });

export const sessionSchema = z
  .object({
    id: z.string().describe('Public id of the session; never the cookie value.'),
    created_at: timestamp,
    last_seen_at: timestamp,
    expires_at: timestamp,
    user_agent: z.string(),
    ip: z.string(),
    current: z.boolean(),
  })
  .meta({ id: 'Session' });

export const sessionListSchema = z.object({ items: z.array(sessionSchema) });
export const sessionIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'must be a session id') });
