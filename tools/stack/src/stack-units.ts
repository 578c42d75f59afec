import { addressVariableOf, calleesOf, serveArgsOf, units, type BackingServiceName, type PortName, type UnitDatabase } from '@latchkey/units';

export type { BackingServiceName } from '@latchkey/units';

/**
 * Which range a port comes from when ports are fixed: gRPC listeners count
 * up from the port base (50051), metrics listeners from 9464, and the
 * gateway's HTTP port is GATEWAY_PORT (8080).
 */
export type PortKind = PortName;

export interface UnitPort {
  /** The variable the unit reads its listening port from. */
  readonly variable: string;
  readonly kind: PortKind;
  /** Position in its kind's fixed range, so that adding a unit moves no other unit's port. */
  readonly offset: number;
}

/** One process of the stack, as data: what to run and how it is wired. */
export interface StackUnit {
  readonly name: string;
  /** Entry script relative to the repository root, run with this Node binary. */
  readonly entry: string;
  /** Whether `<entry> migrate` runs, and must exit 0, before any unit starts. */
  readonly migrates: boolean;
  /** Arguments that start the long-running process. */
  readonly serveArgs: readonly string[];
  readonly ports: readonly UnitPort[];
  /**
   * The variable under which other units find this unit's gRPC listener
   * (`IDENTITY_GRPC_ADDRESS=127.0.0.1:<GRPC_PORT>`).
   */
  readonly addressVariable?: string;
  /** Units whose addresses this unit reads; they start, and are ready, first. */
  readonly needs: readonly string[];
  readonly backingServices: readonly BackingServiceName[];
  /** Its PostgreSQL schemas, which its own role owns or reads. */
  readonly database?: UnitDatabase;
}

/** Every unit of the stack, in the order migrations run: the catalogue of @latchkey/units. */
export const stackUnits: readonly StackUnit[] = units.map((unit) => ({
  name: unit.name,
  entry: `${unit.folder}/dist/main.js`,
  migrates: unit.migrates,
  serveArgs: serveArgsOf(unit),
  ports: unit.ports.map((port) => ({ variable: port.variable, kind: port.name, offset: port.localOffset })),
  ...(unit.kind === 'grpc' ? { addressVariable: addressVariableOf(unit.name) } : {}),
  // The units it calls start first, so that their addresses are known (with random ports, only once they are up).
  needs: calleesOf(unit),
  backingServices: unit.backingServices,
  ...(unit.database ? { database: unit.database } : {}),
}));

/** The units named in `names`, in catalogue order; all of them when `names` is undefined. */
export function selectUnits(catalogue: readonly StackUnit[], names?: readonly string[]): StackUnit[] {
  if (names === undefined) return [...catalogue];
  const known = new Set(catalogue.map((unit) => unit.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`unknown stack unit(s): ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  }
  return catalogue.filter((unit) => names.includes(unit.name));
}

/** The units that run `migrate`, in catalogue order (identity before jobs). */
export function migrationOrder(units: readonly StackUnit[]): StackUnit[] {
  return units.filter((unit) => unit.migrates);
}

/**
 * The order to start `units` in: every unit after the units it needs, and
 * otherwise in catalogue order, so the gateway comes last. Needs on units
 * that are not selected are ignored: their addresses come from the
 * environment or the process's own default. Stopping goes in reverse.
 */
export function startOrder(units: readonly StackUnit[]): StackUnit[] {
  const selected = new Map(units.map((unit) => [unit.name, unit]));
  const ordered: StackUnit[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (unit: StackUnit): void => {
    if (placed.has(unit.name)) return;
    if (visiting.has(unit.name)) throw new Error(`stack units need each other in a cycle through ${unit.name}`);
    visiting.add(unit.name);
    for (const name of unit.needs) {
      const needed = selected.get(name);
      if (needed) place(needed);
    }
    visiting.delete(unit.name);
    placed.add(unit.name);
    ordered.push(unit);
  };
  units.forEach(place);
  return ordered;
}
