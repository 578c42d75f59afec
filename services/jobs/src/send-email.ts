import { createHash } from 'node:crypto';
import type pg from 'pg';
import { jobSubjects, mailJobSchema, type MailJob } from '@latchkey/jobs-contract';
import { isJobCompleted, recordCompletedJob } from './completed-jobs';
import type { JobContext, JobDefinition, JobOutcome } from './job-consumer';
import { renderMail } from './mail-templates';
import type { Mailer } from './mailer';

export interface SendEmailDeps {
  readonly pool: pg.Pool;
  readonly mailer: Mailer;
  readonly publicAppUrl: string;
}

/**
 * The Message-ID derives from the job id, so that a mail sent twice (a crash
 * between SMTP's acceptance and the completed_jobs insert) carries the same
 * id both times and mail clients and support can tell it is one mail. Ids
 * that are not plain atoms are hashed, since the header allows no spaces,
 * brackets or `@` there.
 */
export function messageIdForJob(jobId: string): string {
  const local = /^[A-Za-z0-9._-]{1,128}$/.test(jobId) ? jobId : createHash('sha256').update(jobId).digest('hex');
  return `<${local}@latchkey>`;
}

/**
 * Sends one mail at most once per job id, as far as the completed_jobs
 * record reaches: a redelivery after the mail went out is skipped. The mail
 * job's own, and a job's that mails as its last step.
 */
export async function sendEmail(deps: SendEmailDeps, job: MailJob, context: JobContext): Promise<JobOutcome> {
  if (await isJobCompleted(deps.pool, context.jobId)) return 'duplicate';
  const { subject, text } = renderMail(job, deps.publicAppUrl);
  await deps.mailer.send({ to: job.to, subject, text, messageId: messageIdForJob(context.jobId) });
  try {
    await recordCompletedJob(deps.pool, context.jobId);
  } catch (error) {
    // The mail is out: failing the job now would send it again on the retry.
    // The job is still acknowledged, so only a lost ack could repeat it.
    context.logger.warn({ err: error }, 'mail sent but not recorded as completed');
  }
  return 'completed';
}

/** The `jobs.mail.send` job as the consumer runs it. */
export function sendEmailJob(deps: SendEmailDeps): JobDefinition<MailJob> {
  return {
    name: 'mail',
    subject: jobSubjects.sendMail,
    schema: mailJobSchema,
    handle: (job, context) => sendEmail(deps, job, context),
    // Parked jobs stay 30 days on the dead-letter stream; a mailed token must
    // not (docs/api.md, "Links and tokens"). It would have expired long before anyone replays it.
    redactForDeadLetter: (payload) =>
      typeof payload === 'object' && payload !== null && 'token' in payload ? { ...payload, token: '[redacted]' } : payload,
  };
}
