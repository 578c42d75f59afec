import { jobSubjects } from '@latchkey/jobs-contract';
import { topology } from './job-streams';

/** The units that connect to NATS, each as a user of its own name when credentials are on. */
export const busUsers = ['identity', 'oauth', 'totp', 'posts', 'passkeys', 'jobs'] as const;
export type BusUser = (typeof busUsers)[number];

/**
 * The one unit that creates the streams and keeps their settings
 * (ensureStreams): the worker, which consumes the jobs and dead-letters
 * them. No other unit may create, change or delete a stream, so a unit
 * taken over cannot shorten the jobs' retention, redirect their subjects or
 * drop the events; until the worker has run once, producers' jobs wait in
 * their outboxes.
 */
export const streamOwner: BusUser = 'jobs';

/** Subjects a user may publish to and subscribe to; anything else the server refuses. */
export interface BusPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
}

/** The jobs and domain events each producer writes into its outbox (unprefixed; the chart prefixes them too). */
export const producedJobs: Record<Exclude<BusUser, 'jobs'>, readonly string[]> = {
  identity: [
    jobSubjects.sendMail,
    jobSubjects.userDeleted,
    jobSubjects.passwordReset,
    jobSubjects.sessionsRevoked,
    jobSubjects.backchannelLogout,
    'events.user.>',
    'events.session.>',
    'events.org.>',
  ],
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
 * own inbox. Only the stream owner (the worker) may create and update the
 * three streams ($JS.API.STREAM.CREATE/UPDATE), and no unit may delete or
 * purge one: a JetStream publish needs no stream API, so the producers get
 * none. The worker also runs its consumers on the jobs stream and two on
 * the events stream (session.revoked, for back-channel logout, and
 * org.deleted, for the SSO connections of deleted organisations),
 * dead-letters into the dead-letter stream and replays from it
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
    publish: [...(user === streamOwner ? streamSetup : []), ...publish],
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
      // The session.revoked consumer that tells OpenID clients their sessions ended (docs/oidc.md, "Logout").
      ...['INFO', 'CREATE', 'DURABLE.CREATE', 'MSG.NEXT'].map((action) => `$JS.API.CONSUMER.${action}.${names.eventsStream}.>`),
      `$JS.ACK.${names.eventsStream}.>`,
      names.deadLetterFilter,
      ...['STREAM.MSG.GET', 'DIRECT.GET', 'STREAM.MSG.DELETE'].map((action) => `$JS.API.${action}.${names.deadLetterStream}`),
      names.jobsFilter,
    ]),
  };
}
