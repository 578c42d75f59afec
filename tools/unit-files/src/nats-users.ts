import { busPermissions, type BusPermissions } from '@latchkey/job-streams';
import type { Unit } from '@latchkey/units';

/** The subject prefix of the development NATS server of k8s/ (the chart's default). */
const developmentPrefix = 'latchkey';

export interface NatsUser {
  readonly name: string;
  readonly permissions: BusPermissions;
}

/**
 * The units that connect to NATS, each a user of its own name with the
 * permissions of packages/job-streams, in the chart's order (by name).
 */
export function natsUsers(units: readonly Unit[]): NatsUser[] {
  const permissions: Record<string, BusPermissions> = busPermissions(developmentPrefix);
  return units
    .filter((unit) => unit.backingServices.includes('nats'))
    .map((unit) => {
      const granted = permissions[unit.name];
      if (!granted) throw new Error(`${unit.name} uses NATS but has no permissions: add it to busUsers in packages/job-streams/src/bus-permissions.ts`);
      return { name: unit.name, permissions: granted };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const variableSuffix = (name: string): string => name.toUpperCase().replace(/-/g, '_');
const list = (subjects: readonly string[]): string => subjects.map((subject) => JSON.stringify(subject)).join(', ');

/** The development server's `authorization` block (k8s/nats.yaml), as the chart renders it for prefix "latchkey". */
export function natsAuthorization(users: readonly NatsUser[]): string[] {
  return [
    '    authorization {',
    '      users = [',
    ...users.flatMap(({ name, permissions }) => [
      '        {',
      `          user: ${name}`,
      `          password: $LATCHKEY_NATS_PASSWORD_${variableSuffix(name)}`,
      '          permissions: {',
      `            publish: { allow: [${list(permissions.publish)}] }`,
      `            subscribe: { allow: [${list(permissions.subscribe)}] }`,
      '          }',
      '        }',
    ]),
    '      ]',
    '    }',
  ];
}

/** The development server's password variables, from the backing Secret (k8s/nats.yaml). */
export function natsPasswordVariables(users: readonly NatsUser[]): string[] {
  return users.flatMap(({ name }) => [
    `            - name: LATCHKEY_NATS_PASSWORD_${variableSuffix(name)}`,
    '              valueFrom:',
    '                secretKeyRef:',
    '                  name: latchkey-dev-backing',
    `                  key: NATS_PASSWORD_${variableSuffix(name)}`,
  ]);
}

/** The development passwords, the chart's defaults (k8s/backing-secret.yaml). */
export function natsPasswords(users: readonly NatsUser[]): string[] {
  return users.map(({ name }) => `  NATS_PASSWORD_${variableSuffix(name)}: ${developmentNatsPassword(name)}`);
}

/** The password a unit's NATS user has in development; the chart refuses it in production. */
export function developmentNatsPassword(name: string): string {
  return `latchkey-dev-nats-${name}`;
}
