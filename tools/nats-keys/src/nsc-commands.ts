import { busPermissions, type BusPermissions } from '@latchkey/job-streams';

// A subject in single quotes for a POSIX shell: the JetStream API's subjects start with `$`.
const shellQuoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The nsc commands that make each unit's user in the operator/JWT mode of
 * NATS (natsAuth.mode creds), with the same publish and subscribe
 * permissions as the other modes, and write its credentials file
 * `<unit>.creds`, the key the chart mounts from natsAuth.existingSecret.
 */
export function nscCommands(options: { readonly account: string; readonly prefix: string; readonly units: readonly string[] }): string[] {
  const permissions = busPermissions(options.prefix) as Record<string, BusPermissions>;
  const account = shellQuoted(options.account);
  return options.units.flatMap((unit) => {
    const granted = permissions[unit];
    if (!granted) throw new Error(`${unit} uses NATS but has no permissions: add it to busUsers in packages/job-streams/src/bus-permissions.ts`);
    return [
      `nsc add user --account ${account} --name ${unit} \\`,
      `  --allow-pub ${shellQuoted(granted.publish.join(','))} \\`,
      `  --allow-sub ${shellQuoted(granted.subscribe.join(','))}`,
      `nsc generate creds --account ${account} --name ${unit} --output-file ${unit}.creds`,
    ];
  });
}
