import { busPermissions, type BusPermissions } from '@latchkey/job-streams';
import type { Unit } from '@latchkey/units';
import { createUser } from 'nkeys.js';
import { stringify } from 'yaml';

/** One unit's NATS identity in natsAuth.mode nkey: the seed it signs with (secret) and its public key (not). */
export interface UnitNkey {
  readonly unit: string;
  /** `SU...`: goes only into the Secret, key `<unit>.nk`. */
  readonly seed: string;
  /** `U...`: natsAuth.nkeys.<unit>, and the NATS server's authorization block. */
  readonly publicKey: string;
}

/** The units that connect to NATS, by name: the same list as the chart's (those that read NATS_URL). */
export function natsUnitsOf(units: readonly Unit[]): string[] {
  return units
    .filter((unit) => unit.backingServices.includes('nats'))
    .map((unit) => unit.name)
    .sort();
}

/** A fresh user NKey for each unit. */
export function createUnitNkeys(unitNames: readonly string[]): UnitNkey[] {
  const decoder = new TextDecoder();
  return unitNames.map((unit) => {
    const pair = createUser();
    return { unit, seed: decoder.decode(pair.getSeed()), publicKey: pair.getPublicKey() };
  });
}

/** The Secret natsAuth.existingSecret names, one key `<unit>.nk` per unit with its seed, as a manifest. */
export function nkeySecretManifest(options: { readonly name: string; readonly namespace: string; readonly keys: readonly UnitNkey[] }): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: options.name, namespace: options.namespace },
    type: 'Opaque',
    stringData: Object.fromEntries(options.keys.map(({ unit, seed }) => [`${unit}.nk`, seed])),
  });
}

/** The chart values that go with the Secret: mode nkey, its name and every unit's public key. */
export function nkeyValues(options: { readonly secretName: string; readonly keys: readonly UnitNkey[] }): string {
  return stringify({
    natsAuth: {
      enabled: true,
      mode: 'nkey',
      existingSecret: options.secretName,
      nkeys: Object.fromEntries(options.keys.map(({ unit, publicKey }) => [unit, publicKey])),
    },
  });
}

function permissionsOf(prefix: string, unit: string): BusPermissions {
  const granted = (busPermissions(prefix) as Record<string, BusPermissions>)[unit];
  if (!granted) throw new Error(`${unit} uses NATS but has no permissions: add it to busUsers in packages/job-streams/src/bus-permissions.ts`);
  return granted;
}

const quoted = (subjects: readonly string[]): string => subjects.map((subject) => JSON.stringify(subject)).join(', ');

/**
 * The NATS server's `authorization` block for these keys under the subject
 * prefix `prefix`, as the chart renders it into <release>-nats-authorization
 * (without its comment lines): public keys only, so it can be copied to a
 * NATS server in any namespace.
 */
export function nkeyAuthorization(prefix: string, keys: readonly Pick<UnitNkey, 'unit' | 'publicKey'>[]): string {
  const entries = keys.flatMap(({ unit, publicKey }) => {
    const permissions = permissionsOf(prefix, unit);
    return [
      '    {',
      `      nkey: ${publicKey}`,
      '      permissions: {',
      `        publish: { allow: [${quoted(permissions.publish)}] }`,
      `        subscribe: { allow: [${quoted(permissions.subscribe)}] }`,
      '      }',
      '    }',
    ];
  });
  return ['authorization {', '  users = [', ...entries, '  ]', '}'].join('\n');
}
