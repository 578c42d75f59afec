/**
 * Subjects relative to the installation's prefix (NATS_SUBJECT_PREFIX).
 * Producers write these into the outbox; the relay adds the prefix.
 */
export const jobSubjects = {
  sendMail: 'jobs.mail.send',
  indexPost: 'jobs.search.index',
  /** `delete_content`: a deleted post's stored content and search entry. */
  deleteContent: 'jobs.content.delete',
  /** Identity's `user.deleted`: the worker removes what other units keep of the account. */
  userDeleted: 'jobs.user.deleted',
  /** Identity's password reset: the worker removes recently added ways in and mails the reset notice. */
  passwordReset: 'jobs.user.reset',
  /** Identity's credential change: the worker ends the sessions of earlier credential epochs. */
  sessionsRevoked: 'jobs.sessions.revoked',
  /** Identity's ended sessions: the worker tells one client that one session ended (OpenID back-channel logout). */
  backchannelLogout: 'jobs.oidc.logout',
  /** Identity's webhook messages: the worker signs and posts one message to one endpoint (docs/webhooks.md). */
  deliverWebhook: 'jobs.webhook.deliver',
} as const;

export type JobSubject = (typeof jobSubjects)[keyof typeof jobSubjects];
