import path from 'node:path';
import type { Unit } from '@latchkey/units';
import { commandOf } from './image-names';

/** Each unit's `<name>-deploy` stage: its own package and production dependencies, in /out. */
export function deployStages(units: readonly Unit[]): string[] {
  return units.flatMap((unit, index) => [
    ...(index > 0 ? [''] : []),
    `FROM build AS ${unit.name}-deploy`,
    'RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \\',
    '    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \\',
    `    pnpm deploy --filter ${unit.packageName} --prod --prefer-offline /out`,
  ]);
}

/**
 * Each unit's target: the runtime with the deployed unit, listening on the
 * chart's ports whatever its process defaults to (those keep the units apart
 * on one host, in the local stack), starting what the chart runs.
 */
export function runtimeTargets(units: readonly Unit[]): string[] {
  return units.flatMap((unit, index) => [
    ...(index > 0 ? [''] : []),
    `FROM runtime AS ${unit.name}`,
    `COPY --from=${unit.name}-deploy /out /app`,
    ...(unit.commands ?? []).map((command) => `COPY --chmod=0755 ${path.posix.join(unit.folder, command)} /usr/local/bin/${path.posix.basename(command)}`),
    ...unit.ports.map((port) => `ENV ${port.variable}=${port.containerPort}`),
    `EXPOSE ${unit.ports.map((port) => port.containerPort).join(' ')}`,
    `CMD ${JSON.stringify(commandOf(unit)).replaceAll(',', ', ')}`,
  ]);
}

/** The build commands in the Dockerfile's opening comment. */
export function buildCommands(units: readonly Unit[]): string[] {
  const width = Math.max(...units.map((unit) => unit.name.length));
  return units.map((unit) => `#   docker build --target ${unit.name.padEnd(width)} -t latchkey/${unit.name.padEnd(width)} .`);
}
