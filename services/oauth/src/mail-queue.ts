import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type MailJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import type { ProviderName } from './providers/provider';

/**
 * Queues the `oauth_linked` / `oauth_unlinked` security notice (docs/api.md,
 * "Security notices") in the caller's transaction, so it is sent exactly when the change
 * commits. It goes to the account's address, not the provider's.
 */
export async function queueConnectionNotice(
  db: pg.ClientBase,
  account: { email: string; handle: string },
  notice: 'oauth_linked' | 'oauth_unlinked',
  provider: ProviderName,
  context: RequestContext,
): Promise<void> {
  const job: MailJob = { template: 'security_notice', to: account.email, handle: account.handle, notice, provider };
  await enqueueJob(db, jobSubjects.sendMail, job, context);
}
