import { jobSubjects } from '@latchkey/jobs-contract';
import { topology } from './job-streams';

/** The units that connect to NATS, each as a user of its own name when credentials are on. */
export const busUsers = ['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs'] as const;
export type BusUser = (typeof busUsers)[number];

/** Subjects a user may publish to and subscribe to; anything else the server refuses. */
export interface BusPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
}

/** The jobs and domain events each producer writes into its outbox. */
const producedJobs: Record<Exclude<BusUser, 'jobs'>, readonly string[]> = {
  identity: [jobSubjects.sendMail, jobSubjects.userDeleted, jobSubjects.passwordReset, jobSubjects.sessionsRevoked, 'events.user.>', 'events.session.>'],
  oauth: [jobSubjects.sendMail],
  totp: [jobSubjects.sendMail],
  posts: [jobSubjects.indexPost, jobSubjects.deleteContent, 'events.post.>'],
  passkeys: [jobSubjects.sendMail],
};

/**
 * Replies (JetStream API answers, and for the worker the jobs its consumers
 * pull) come to inboxes under this prefix, which only that user may read:
 * with the shared `_INBOX.>` any unit could read the mails, tokens included,
 * delivered to the worker.
 */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/**
 * docs/operations.md, "NATS permissions": each unit publishes only the jobs
 * and domain events it produces, so that a unit taken over cannot forge
 * another's (a `user.deleted` for a live account, say), and reads only its
 * own inbox. Every unit may create and update the three streams (whoever starts first
 * does, see ensureStreams). The worker also runs its consumers on the jobs
 * stream, dead-letters into the dead-letter stream and replays from it
 * (`pnpm jobs:dlq`), which re-publishes a job under its original subject.
 */
export function busPermissions(prefix: string): Record<BusUser, BusPermissions> {
  const names = topology(prefix);
  const streams = [names.jobsStream, names.deadLetterStream, names.eventsStream];
  const streamSetup = [
    '$JS.API.INFO',
    ...['INFO', 'CREATE', 'UPDATE'].flatMap((action) => streams.map((stream) => `$JS.API.STREAM.${action}.${stream}`)),
  ];
  const permissions = (user: BusUser, publish: readonly string[]): BusPermissions => ({
    publish: [...streamSetup, ...publish],
    subscribe: [`${inboxPrefixOf(user)}.>`],
  });
  const produced = (user: Exclude<BusUser, 'jobs'>) => permissions(user, producedJobs[user].map(names.subject));
  return {
    identity: produced('identity'),
    oauth: produced('oauth'),
    totp: produced('totp'),
    posts: produced('posts'),
    passkeys: produced('passkeys'),
    jobs: permissions('jobs', [
      ...['INFO', 'CREATE', 'DURABLE.CREATE', 'MSG.NEXT'].map((action) => `$JS.API.CONSUMER.${action}.${names.jobsStream}.>`),
      `$JS.ACK.${names.jobsStream}.>`,
      names.deadLetterFilter,
      ...['STREAM.MSG.GET', 'DIRECT.GET', 'STREAM.MSG.DELETE'].map((action) => `$JS.API.${action}.${names.deadLetterStream}`),
      names.jobsFilter,
    ]),
  };
}
