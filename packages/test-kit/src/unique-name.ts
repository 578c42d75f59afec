import { randomBytes } from 'node:crypto';

/** A name no other test file of this run or a parallel run will pick. */
export function uniqueName(label: string): string {
  const clean = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 20);
  return `t_${clean}_${randomBytes(5).toString('hex')}`;
}
