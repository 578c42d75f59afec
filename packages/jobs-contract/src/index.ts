export { mailJobSchema, securityNotices, type MailJob, type SecurityNotice } from './mail-job';
export { jobSubjects, topology, ensureStreams, type JobSubject } from './topology';
