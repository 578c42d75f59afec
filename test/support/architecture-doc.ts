import { readdirSync } from 'node:fs';
import path from 'node:path';
import { calleesOf, type Unit } from '@latchkey/units';

/** The proto packages under `proto/` (`identity` for proto/identity/v1). */
export function protoPackagesUnder(root: string): string[] {
  return readdirSync(path.join(root, 'proto'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function sectionOf(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The rows of "Units": the folder each names, and what it says the unit talks to. */
function unitRows(text: string): { folder: string; talksTo: string }[] {
  return [...sectionOf(text, 'Units').matchAll(/^\| `([^`]+)` \| .* \| ([^|]+) \|$/gm)].map(([, folder, talksTo]) => ({ folder: folder!, talksTo: talksTo! }));
}

/**
 * Where docs/architecture.md disagrees with the catalogue and `proto/`:
 * its units table must have a row per unit (by folder) whose "talks to"
 * names exactly the units it calls (unit names as words, its own aside),
 * and "Contracts" must list exactly the proto packages.
 */
export function architectureProblems(text: string, catalogue: readonly Unit[], protoPackages: readonly string[]): string[] {
  const problems: string[] = [];
  const rows = unitRows(text);
  const folders = rows.map((row) => row.folder);
  for (const unit of catalogue) if (!folders.includes(unit.folder)) problems.push(`the units table has no row for ${unit.folder}`);
  for (const row of rows) {
    const unit = catalogue.find((candidate) => candidate.folder === row.folder);
    if (!unit) {
      problems.push(`the units table has a row for ${row.folder}, which is no unit of the catalogue`);
      continue;
    }
    const named = catalogue.filter((other) => other !== unit && new RegExp(`\\b${other.name}\\b`).test(row.talksTo)).map((other) => other.name);
    const callees = calleesOf(unit, catalogue);
    if (named.join() !== callees.join()) problems.push(`${unit.name} talks to ${named.join(', ') || 'no unit'} in the units table, and calls ${callees.join(', ') || 'no unit'}`);
  }
  const listed = /`proto\/\{([\w,]+)\}\/v1\/\*\.proto`/.exec(sectionOf(text, 'Contracts'))?.[1]?.split(',') ?? [];
  if ([...listed].sort().join() !== [...protoPackages].sort().join()) problems.push(`"Contracts" lists proto/{${listed.join(',')}}, and proto/ holds ${protoPackages.join(', ')}`);
  return problems;
}
