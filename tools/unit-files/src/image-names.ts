import { serveArgsOf, type Unit } from '@latchkey/units';

/** The image a unit runs, built from the Dockerfile target of its name. */
export function imageOf(unit: Unit): string {
  return `latchkey/${unit.name}`;
}

/** The command its container starts with: the chart's `args` and the image's CMD. */
export function commandOf(unit: Unit): readonly string[] {
  return ['node', 'dist/main.js', ...serveArgsOf(unit)];
}

/** What its migration Job runs. */
export const migrateCommand: readonly string[] = ['node', 'dist/main.js', 'migrate'];
