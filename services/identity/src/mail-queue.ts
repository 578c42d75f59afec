import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type MailJob, type SecurityNotice } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';
import type { UserRecord } from './user-store';

/** Queues a mail in the caller's transaction, so it is sent exactly when the change commits. */
export async function queueMail(db: pg.ClientBase, job: MailJob, context: RequestContext): Promise<void> {
  await enqueueJob(db, jobSubjects.sendMail, job, context);
}

export function queueSecurityNotice(
  db: pg.ClientBase,
  user: Pick<UserRecord, 'email' | 'handle'>,
  notice: SecurityNotice,
  context: RequestContext,
  extra: { new_email?: string } = {},
): Promise<void> {
  return queueMail(db, { template: 'security_notice', to: user.email, handle: user.handle, notice, ...extra }, context);
}
