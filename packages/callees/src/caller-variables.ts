import { z } from 'zod';
import { env } from '@latchkey/config';
import { addressVariableOf, calleesOf, localPortOf, unitNamed, units, unitServing, type CalleeOf, type HasDeadline, type Unit, type UnitName } from '@latchkey/units';

/** GRPC_DEADLINE_MS's bounds: room for a call at the low end, a stuck dependency given up at the high end. */
const DEADLINE_MIN_MS = 100;
const DEADLINE_MAX_MS = 120_000;

/** `IDENTITY_GRPC_ADDRESS` for `'identity'`. */
export type AddressVariableOf<Callee extends string> = `${Uppercase<Callee>}_GRPC_ADDRESS`;

type AddressVariables<Name extends UnitName> = {
  readonly [Callee in CalleeOf<Name> as AddressVariableOf<Callee>]: z.ZodDefault<z.ZodString>;
};

type DeadlineVariable<Name extends UnitName> =
  HasDeadline<Name> extends true ? { readonly GRPC_DEADLINE_MS: ReturnType<typeof env.int> } : Record<never, never>;

/** The variables `callerVariables(name)` adds to unit `Name`'s config schema. */
export type CallerVariables<Name extends UnitName> = AddressVariables<Name> & DeadlineVariable<Name>;

/**
 * What `unit` reads to call the units its catalogue entry names: each one's
 * address (`IDENTITY_GRPC_ADDRESS`), by default where that unit listens
 * when every unit shares one host, and with a time budget of its own
 * (`deadlineMs`), GRPC_DEADLINE_MS. For the dry run of a unit that is not
 * in the catalogue yet; a unit's schema spreads `callerVariables(name)`.
 */
export function callerVariablesOf(unit: Unit, catalogue: readonly Unit[] = units): Record<string, z.ZodType> {
  const addresses = calleesOf(unit, catalogue).map((callee) => {
    const served = catalogue.find((candidate) => candidate.name === callee)!;
    return [addressVariableOf(callee), z.string().default(`127.0.0.1:${localPortOf(served, 'grpc')}`)] as const;
  });
  return {
    ...Object.fromEntries(addresses),
    ...(unit.deadlineMs === undefined ? {} : { GRPC_DEADLINE_MS: env.int(unit.deadlineMs, DEADLINE_MIN_MS, DEADLINE_MAX_MS) }),
  };
}

/**
 * The variables unit `name` reads to call what the catalogue says it
 * calls, for its config schema: `z.object({ ...callerVariables('gateway'), ... })`.
 * Parsed once at start with the rest of its configuration.
 */
export function callerVariables<Name extends UnitName>(name: Name): CallerVariables<Name> {
  return callerVariablesOf(unitNamed(name)) as unknown as CallerVariables<Name>;
}

/** The address `settings` give the unit that serves `service`, as parsed from its caller's variables. */
export function calleeAddressOf(service: string, settings: Readonly<Record<string, unknown>>, catalogue: readonly Unit[] = units): string {
  const variable = addressVariableOf(unitServing(service, catalogue).name);
  const address = settings[variable];
  if (typeof address !== 'string') throw new Error(`${variable} is not among the settings: the caller's config schema spreads callerVariables`);
  return address;
}
