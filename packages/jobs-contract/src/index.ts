export { mailJobSchema, securityNotices, type MailJob, type SecurityNotice } from './mail-job';
export {
  indexPostJobSchema,
  deleteContentJobSchema,
  postContentKey,
  type IndexPostJob,
  type DeleteContentJob,
} from './post-jobs';
export { searchIndex } from './search-index';
export { passwordResetJobSchema, userDeletedJobSchema, type PasswordResetJob, type UserDeletedJob } from './account-jobs';
export { sessionsRevokedJobSchema, type SessionsRevokedJob } from './session-jobs';
export { jobSubjects, type JobSubject } from './job-subjects';
export { backchannelLogoutJobSchema, type BackchannelLogoutJob } from './backchannel-logout-job';
export { webhookDeliveryJobSchema, type WebhookDeliveryJob } from './webhook-delivery-job';
