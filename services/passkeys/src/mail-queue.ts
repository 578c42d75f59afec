import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type MailJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';

/**
 * Queues the `passkey_added` / `passkey_removed` security notice
 * (docs/api.md, "Security notices") in the caller's transaction, so that it
 * is sent exactly when the change commits.
 */
export async function queuePasskeyNotice(
  db: pg.ClientBase,
  account: { readonly email: string; readonly handle: string },
  notice: 'passkey_added' | 'passkey_removed',
  passkeyName: string,
  context: RequestContext,
): Promise<void> {
  const job: MailJob = { template: 'security_notice', to: account.email, handle: account.handle, notice, passkey_name: passkeyName };
  await enqueueJob(db, jobSubjects.sendMail, job, { requestId: context.requestId });
}
