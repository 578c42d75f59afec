import { busPermissions, type BusUser } from '@latchkey/job-streams';

/** The NATS server variable that holds `user`'s password in the authorization block. */
export function natsPasswordVariable(user: string): string {
  return `LATCHKEY_NATS_PASSWORD_${user.toUpperCase()}`;
}

const quoted = (subjects: readonly string[]) => subjects.map((subject) => JSON.stringify(subject)).join(', ');

/**
 * The `authorization` block of busPermissions for `users`, in the NATS
 * server's configuration format, as the chart renders it into
 * <release>-nats-authorization (without its comment lines).
 */
export function natsAuthorizationBlock(prefix: string, users: readonly BusUser[]): string {
  const permissions = busPermissions(prefix);
  const entries = users.flatMap((user) => [
    '    {',
    `      user: ${user}`,
    `      password: $${natsPasswordVariable(user)}`,
    '      permissions: {',
    `        publish: { allow: [${quoted(permissions[user].publish)}] }`,
    `        subscribe: { allow: [${quoted(permissions[user].subscribe)}] }`,
    '      }',
    '    }',
  ]);
  return ['authorization {', '  users = [', ...entries, '  ]', '}'].join('\n');
}
