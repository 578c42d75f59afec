import type { Unit } from '@latchkey/units';
import { imageOf } from './image-names';

/** One artifact per unit, from the Dockerfile target of its name. */
export function artifacts(units: readonly Unit[]): string[] {
  return units.flatMap((unit) => [
    `    - image: ${imageOf(unit)}`,
    '      context: .',
    '      docker:',
    '        dockerfile: Dockerfile',
    `        target: ${unit.name}`,
  ]);
}

/** The chart values that make each unit run the image Skaffold built, by digest. */
export function imageValueTemplates(units: readonly Unit[]): string[] {
  return units.flatMap((unit) => {
    // Skaffold names an image's template variables with its characters other than letters and digits as "_".
    const variable = imageOf(unit).replace(/[^A-Za-z0-9]/g, '_');
    return [
      `          units.${unit.name}.image.repository: "{{.IMAGE_REPO_${variable}}}"`,
      `          units.${unit.name}.image.tag: "{{.IMAGE_TAG_${variable}}}@{{.IMAGE_DIGEST_${variable}}}"`,
    ];
  });
}
