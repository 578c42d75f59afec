import { addressVariableOf, callersOf, localPortOf, type Unit } from '@latchkey/units';

/**
 * The rows of README.md's table of the settings each caller reads, from the
 * catalogue: the address of each gRPC unit, read by the units that call it,
 * and GRPC_DEADLINE_MS, read by the units with a time budget of their own.
 */
export function callerSettingsTable(units: readonly Unit[]): string[] {
  const addresses = units
    .filter((unit) => unit.kind === 'grpc')
    .map(
      (unit) =>
        `| \`${addressVariableOf(unit.name)}\` | ${callersOf(unit.name, units).join(', ')} | \`127.0.0.1:${localPortOf(unit, 'grpc')}\` | where ${unit.name} listens |`,
    );
  const budgeted = units.filter((unit) => unit.deadlineMs !== undefined);
  return [
    '| variable | read by | default | meaning |',
    '|---|---|---|---|',
    ...addresses,
    `| \`GRPC_DEADLINE_MS\` | ${budgeted.map((unit) => unit.name).join(', ')} | ${budgeted.map((unit) => `${unit.deadlineMs} (${unit.name})`).join(', ')} | the time budget, 100 to 120000 ms, of one piece of work the unit starts itself (a request, a job); each gRPC call it makes for that work hands on what is left of it |`,
  ];
}
