// docs/operations.md, "A PostgreSQL role per unit": the chart hands each
// unit the database URLs of its own role (secrets.unitValues, or any
// Secret through secrets.unitRefs), its Deployment and its migration Job
// alike, and a unit without one the shared DATABASE_URL, so that a
// single-URL install renders as before.
import { units } from '@latchkey/units';
import { findObject, productionValues, removeValuesFiles, renderChart, runHelm, templateArgs, writeValuesFile, type K8sObject } from './helm';
import { containerEnvironment, mainContainer } from './workloads';

afterAll(removeValuesFiles);

const onPostgres = units.filter((unit) => unit.database !== undefined).map((unit) => unit.name);
const roleUrl = (unit: string, host = 'primary') => `postgres://latchkey_${unit}:password-of-${unit}@${host}:5432/latchkey`;

/** What DATABASE_URL (or `variable`) each workload starts with, by its name: a value, or where a Secret of elsewhere holds it. */
function databaseUrls(objects: readonly K8sObject[], variable = 'DATABASE_URL'): Record<string, string | undefined> {
  const found: Record<string, string | undefined> = {};
  for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'Job')) {
    const environment = containerEnvironment(objects, mainContainer(object));
    const external = environment.external.get(variable);
    found[object.metadata.name] = external ? `${external.secret}/${external.key}` : environment.values[variable];
  }
  return found;
}

function expectRejected(values: unknown, message: RegExp): void {
  const result = runHelm(templateArgs({ values: [writeValuesFile(values)] }));
  expect(result.status).not.toBe(0);
  expect(result.stderr).toMatch(message);
}

describe('a database URL per unit', () => {
  test('without one, every unit on PostgreSQL reads the shared DATABASE_URL, and the gateway none', () => {
    const objects = renderChart();
    const shared = 'postgres://latchkey:latchkey@latchkey-postgres:5432/latchkey';
    const urls = databaseUrls(objects);
    for (const unit of onPostgres) expect({ unit, deployment: urls[`latchkey-${unit}`], migration: urls[`latchkey-${unit}-migrate`] }).toEqual({ unit, deployment: shared, migration: shared });
    expect(urls['latchkey-gateway']).toBeUndefined();
  });

  test('from secrets.unitValues, each unit and its migration read their own role’s URLs from the chart’s Secret, which keeps no shared one', () => {
    const unitValues = Object.fromEntries(
      onPostgres.map((unit) => [unit, { DATABASE_URL: roleUrl(unit), ...(unit === 'posts' ? { DATABASE_READ_URL: roleUrl(unit, 'replica') } : {}) }]),
    );
    const objects = renderChart({ values: [writeValuesFile({ secrets: { values: { DATABASE_URL: '' }, unitValues } })] });
    const urls = databaseUrls(objects);
    for (const unit of onPostgres) {
      expect({ unit, deployment: urls[`latchkey-${unit}`], migration: urls[`latchkey-${unit}-migrate`] }).toEqual({ unit, deployment: roleUrl(unit), migration: roleUrl(unit) });
    }
    expect(urls['latchkey-gateway']).toBeUndefined();
    expect(databaseUrls(objects, 'DATABASE_READ_URL')['latchkey-posts']).toBe(roleUrl('posts', 'replica'));
    const keys = Object.keys(findObject(objects, 'Secret', 'latchkey-secrets').data as Record<string, string>);
    expect(keys.filter((key) => key.includes('DATABASE'))).toEqual([...onPostgres.map((unit) => `${unit}.DATABASE_URL`), 'posts.DATABASE_READ_URL'].sort());
    // A change of one unit's URL rolls that unit's pods only.
    const changed = renderChart({
      values: [writeValuesFile({ secrets: { values: { DATABASE_URL: '' }, unitValues: { ...unitValues, totp: { DATABASE_URL: roleUrl('totp', 'elsewhere') } } } })],
    });
    const checksum = (rendered: readonly K8sObject[], unit: string) =>
      (findObject(rendered, 'Deployment', `latchkey-${unit}`).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations['checksum/secrets'];
    expect(checksum(changed, 'totp')).not.toBe(checksum(objects, 'totp'));
    expect(checksum(changed, 'identity')).toBe(checksum(objects, 'identity'));
  });

  test('one unit’s own URL leaves the others on the shared one', () => {
    const objects = renderChart({ values: [writeValuesFile({ secrets: { unitValues: { identity: { DATABASE_URL: roleUrl('identity') } } } })] });
    const urls = databaseUrls(objects);
    expect(urls['latchkey-identity']).toBe(roleUrl('identity'));
    expect(urls['latchkey-identity-migrate']).toBe(roleUrl('identity'));
    expect(urls['latchkey-posts']).toBe('postgres://latchkey:latchkey@latchkey-postgres:5432/latchkey');
  });

  test('from secrets.unitRefs, any Secret and key (existingSecret too), watched by Reloader', () => {
    const objects = renderChart({
      values: [
        writeValuesFile({
          secrets: {
            existingSecret: 'latchkey-credentials',
            reloader: true,
            unitRefs: {
              posts: { DATABASE_URL: { name: 'latchkey-db-posts', key: 'uri' } },
              identity: { DATABASE_URL: { name: 'latchkey-credentials', key: 'identity-database-url' } },
            },
          },
        }),
      ],
    });
    const urls = databaseUrls(objects);
    expect(urls['latchkey-posts']).toBe('latchkey-db-posts/uri');
    expect(urls['latchkey-posts-migrate']).toBe('latchkey-db-posts/uri');
    expect(urls['latchkey-identity']).toBe('latchkey-credentials/identity-database-url');
    expect(urls['latchkey-jobs']).toBe('latchkey-credentials/DATABASE_URL');
    const posts = findObject(objects, 'Deployment', 'latchkey-posts');
    expect(posts.metadata.annotations?.['secret.reloader.stakater.com/reload']?.split(',')).toContain('latchkey-db-posts');
  });

  test('refuses a unit that is not enabled, a variable the unit does not read, and a URL that is no PostgreSQL URL', () => {
    expectRejected({ secrets: { unitValues: { billing: { DATABASE_URL: roleUrl('billing') } } } }, /secrets\.unitValues\.billing: billing is not an enabled unit/);
    expectRejected({ secrets: { unitValues: { gateway: { DATABASE_URL: roleUrl('gateway') } } } }, /secrets\.unitValues\.gateway\.DATABASE_URL: units\.gateway reads no secret DATABASE_URL/);
    expectRejected({ secrets: { unitRefs: { identity: { DATABASE_ULR: { name: 'latchkey-db', key: 'uri' } } } } }, /units\.identity reads no secret DATABASE_ULR/);
    expectRejected({ secrets: { unitValues: { identity: { DATABASE_URL: 'mysql://db/latchkey' } } } }, /DATABASE_URL/);
    // Production takes no published password, per unit either.
    const published = { secrets: { existingSecret: '', unitValues: { identity: { DATABASE_URL: 'postgres://latchkey_identity:latchkey@db:5432/latchkey' } } } };
    const result = runHelm(templateArgs({ values: [productionValues, writeValuesFile(published)] }));
    expect(result.stderr).toMatch(/secrets\.unitValues\.identity\.DATABASE_URL is a development default/);
    // The shared URL is still required by a unit that has none of its own.
    expectRejected({ secrets: { values: { DATABASE_URL: '' }, unitValues: { identity: { DATABASE_URL: roleUrl('identity') } } } }, /secrets\.values\.DATABASE_URL is required by units\.\w+/);
  });
});
