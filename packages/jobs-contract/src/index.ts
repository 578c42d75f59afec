export { mailJobSchema, securityNotices, type MailJob, type SecurityNotice } from './mail-job';
export {
  indexPostJobSchema,
  deleteContentJobSchema,
  type IndexPostJob,
  type DeleteContentJob,
} from './post-jobs';
export { searchIndex } from './search-index';
export { jobSubjects, topology, ensureStreams, type JobSubject } from './topology';
