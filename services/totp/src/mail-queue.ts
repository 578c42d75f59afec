import type { RequestContext } from '@latchkey/grpc-kit';
import type pg from 'pg';
import { jobSubjects, type SecurityNotice } from '@latchkey/jobs-contract';
import { enqueueJob } from '@latchkey/outbox';

/** Who a notice goes to; this service knows accounts only by what the caller passes. */
export interface NoticeRecipient {
  readonly accountEmail: string;
  readonly accountHandle: string;
}

/**
 * Queues a security notice (docs/api.md, "Security notices") in the caller's transaction, so
 * that it is sent exactly when the change commits.
 */
export async function queueSecurityNotice(
  db: pg.ClientBase,
  recipient: NoticeRecipient,
  notice: SecurityNotice,
  context: RequestContext,
): Promise<void> {
  await enqueueJob(
    db,
    jobSubjects.sendMail,
    { template: 'security_notice', to: recipient.accountEmail, handle: recipient.accountHandle, notice },
    context,
  );
}
