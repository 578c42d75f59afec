import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Unit } from '@latchkey/units';
import { parse } from 'yaml';
import { callerSettingsTable } from './caller-settings-table';
import { chartCatalogue } from './chart-catalogue';
import { buildCommands, deployStages, runtimeTargets } from './dockerfile-targets';
import { replaceRegion } from './marked-region';
import { natsAuthorization, natsPasswords, natsPasswordVariables, natsUsers } from './nats-users';
import { artifacts, imageValueTemplates } from './skaffold-artifacts';

/** Every file generated wholly from the catalogue. */
export const generatedFiles = ['charts/latchkey/catalogue.yaml'] as const;
/** Every hand-written file with regions generated from the catalogue. */
export const filesWithGeneratedRegions = ['Dockerfile', 'skaffold.yaml', 'k8s/nats.yaml', 'k8s/backing-secret.yaml', 'README.md'] as const;

/**
 * What `pnpm gen` writes, path (from the repository root) => text, from the
 * catalogue and the files under `root` as they are.
 */
export function unitFiles(root: string, units: readonly Unit[]): Record<string, string> {
  const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
  const values = parse(read('charts/latchkey/values.yaml')) as { config: Record<string, unknown>; secrets: { values: Record<string, unknown> } };
  const users = natsUsers(units);
  const regions = (file: string, replacements: Record<string, readonly string[]>): string =>
    Object.entries(replacements).reduce((text, [region, body]) => replaceRegion(text, file, region, body), read(file));
  return {
    'charts/latchkey/catalogue.yaml': chartCatalogue(units, {
      config: new Set(Object.keys(values.config)),
      secrets: new Set(Object.keys(values.secrets.values)),
    }),
    Dockerfile: regions('Dockerfile', {
      'build commands': buildCommands(units),
      'deploy stages': deployStages(units),
      'unit targets': runtimeTargets(units),
    }),
    'skaffold.yaml': regions('skaffold.yaml', { artifacts: artifacts(units), 'image values': imageValueTemplates(units) }),
    'k8s/nats.yaml': regions('k8s/nats.yaml', { 'NATS users': natsAuthorization(users), 'NATS passwords': natsPasswordVariables(users) }),
    'k8s/backing-secret.yaml': regions('k8s/backing-secret.yaml', { 'NATS passwords': natsPasswords(users) }),
    'README.md': regions('README.md', { 'caller settings': callerSettingsTable(units) }),
  };
}
