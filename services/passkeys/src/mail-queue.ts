import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type MailJob } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';

/**
 * Queues a passkey's security notice (`passkey_added`, `passkey_removed`,
 * `passkey_suspected_clone`; docs/api.md, "Security notices") in the
 * caller's transaction, so that it is sent exactly when the change commits.
 */
export async function queuePasskeyNotice(
  db: pg.ClientBase,
  account: { readonly email: string; readonly handle: string },
  notice: 'passkey_added' | 'passkey_removed' | 'passkey_suspected_clone',
  passkeyName: string,
  context: RequestContext,
): Promise<void> {
  const job: MailJob = { template: 'security_notice', to: account.email, handle: account.handle, notice, passkey_name: passkeyName };
  await enqueueJob(db, jobSubjects.sendMail, job, context);
}
