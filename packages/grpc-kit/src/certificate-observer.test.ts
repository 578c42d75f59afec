// The CAs a unit trusts and the CA of its own certificate, as its metrics
// show them, checked against what openssl (an independent reader) prints
// for the same files. The certificates are made with the openssl command
// line here: @latchkey/test-kit builds on this package.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '@latchkey/telemetry';
import { observeCertificates } from './certificate-observer';
import { watchedCertificatesOf } from './tls';

const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
const openssl = (args: readonly string[]): string => execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let directory: string;
const file = (name: string) => path.join(directory, name);

/** A self-signed CA named `name`; with `key`, one made again on that key (a renewal with its key kept). */
function makeCa(name: string, options: { days: number; key?: string; extensions?: readonly string[] }): { crt: string; key: string } {
  const crt = file(`${name}-${options.days}.crt`);
  const key = options.key ?? file(`${name}.key`);
  const keyOptions = options.key ? ['-key', options.key] : [...keyArgs, '-keyout', key];
  openssl(['req', '-x509', ...keyOptions, '-out', crt, '-days', String(options.days), '-subj', `/CN=${name}`, ...(options.extensions ?? []).flatMap((extension) => ['-addext', extension])]);
  return { crt, key };
}

function issue(name: string, ca: { crt: string; key: string }, extensions: readonly string[] = []): { certFile: string; keyFile: string } {
  const certFile = file(`${name}.crt`);
  const keyFile = file(`${name}.key`);
  writeFileSync(file(`${name}.ext`), ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=serverAuth,clientAuth', ...extensions].join('\n'));
  openssl(['req', ...keyArgs, '-keyout', keyFile, '-out', file(`${name}.csr`), '-subj', `/CN=${name}`]);
  openssl(['x509', '-req', '-in', file(`${name}.csr`), '-CA', ca.crt, '-CAkey', ca.key, '-days', '2', '-extfile', file(`${name}.ext`), '-out', certFile]);
  return { certFile, keyFile };
}

function bundle(name: string, ...cas: { crt: string }[]): string {
  const caFile = file(`${name}.pem`);
  writeFileSync(caFile, cas.map((ca) => readFileSync(ca.crt, 'utf8')).join(''));
  return caFile;
}

/** What openssl prints as the certificate's Subject Key Identifier. */
const keyIdOf = (crt: string): string => openssl(['x509', '-in', crt, '-noout', '-ext', 'subjectKeyIdentifier']).split('\n')[1]!.trim();
const notAfterOf = (crt: string): number => Date.parse(openssl(['x509', '-in', crt, '-noout', '-enddate']).trim().replace('notAfter=', '')) / 1000;

async function series(registry: Registry, name: string): Promise<{ labels: Record<string, string | number | undefined>; value: number }[]> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values.map(({ labels, value }) => ({ labels: { ...labels }, value }));
}

function observed(files: { certFile: string; keyFile: string; caFile: string }): Registry {
  const registry = new Registry();
  observeCertificates({ registry, logger: createLogger({ service: 'test', level: 'silent' }), units: { ...files, reloadIntervalMs: 50 } });
  return registry;
}

beforeAll(() => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'latchkey-trusted-cas-'));
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('observeCertificates()', () => {
  test('names each trusted CA and the issuer of the unit’s certificate by the key identifier openssl prints', async () => {
    const one = makeCa('ca-one', { days: 30 });
    const two = makeCa('ca-two', { days: 60 });
    const registry = observed({ ...issue('posts', one), caFile: bundle('both', one, two) });

    expect(await series(registry, 'grpc_tls_trusted_ca_info')).toEqual([
      { labels: { bundle: 'units', key_id: keyIdOf(one.crt), subject: 'CN=ca-one' }, value: 1 },
      { labels: { bundle: 'units', key_id: keyIdOf(two.crt), subject: 'CN=ca-two' }, value: 1 },
    ]);
    expect(await series(registry, 'grpc_tls_trusted_ca_expiry_timestamp_seconds')).toEqual([
      { labels: { bundle: 'units', key_id: keyIdOf(one.crt), subject: 'CN=ca-one' }, value: notAfterOf(one.crt) },
      { labels: { bundle: 'units', key_id: keyIdOf(two.crt), subject: 'CN=ca-two' }, value: notAfterOf(two.crt) },
    ]);
    expect(await series(registry, 'grpc_tls_certificate_issuer_info')).toEqual([{ labels: { key_id: keyIdOf(one.crt) }, value: 1 }]);
  });

  test('counts a CA renewed with its key kept as the same CA, trusted until its later end', async () => {
    const old = makeCa('ca-kept', { days: 30 });
    const renewed = makeCa('ca-kept', { days: 400, key: old.key });
    // The unit's certificate comes from the renewed CA, its bundle still holds both.
    const registry = observed({ ...issue('totp', renewed), caFile: bundle('kept', old, renewed) });

    expect(keyIdOf(renewed.crt)).toBe(keyIdOf(old.crt));
    expect(await series(registry, 'grpc_tls_trusted_ca_expiry_timestamp_seconds')).toEqual([
      { labels: { bundle: 'units', key_id: keyIdOf(old.crt), subject: 'CN=ca-kept' }, value: notAfterOf(renewed.crt) },
    ]);
    expect(await series(registry, 'grpc_tls_certificate_issuer_info')).toEqual([{ labels: { key_id: keyIdOf(old.crt) }, value: 1 }]);
  });

  test('without key identifiers in the certificates, takes the SHA-1 of the CA’s key and the CA of the bundle that verifies the certificate', async () => {
    const withIdentifier = makeCa('ca-bare', { days: 30 });
    const bare = makeCa('ca-bare', { days: 31, key: withIdentifier.key, extensions: ['subjectKeyIdentifier=none', 'authorityKeyIdentifier=none'] });
    const other = makeCa('ca-other', { days: 30 });
    const registry = observed({ ...issue('oauth', bare, ['subjectKeyIdentifier=none', 'authorityKeyIdentifier=none']), caFile: bundle('bare', other, bare) });

    expect(openssl(['x509', '-in', bare.crt, '-noout', '-ext', 'subjectKeyIdentifier'])).toBe('');
    // openssl's subjectKeyIdentifier=hash, written into the first certificate on the same key, is that SHA-1.
    expect((await series(registry, 'grpc_tls_trusted_ca_info')).map(({ labels }) => labels.key_id)).toEqual([keyIdOf(other.crt), keyIdOf(withIdentifier.crt)]);
    expect(await series(registry, 'grpc_tls_certificate_issuer_info')).toEqual([{ labels: { key_id: keyIdOf(withIdentifier.crt) }, value: 1 }]);
  });

  test('drops a CA taken out of the bundle from the next scrape', async () => {
    const one = makeCa('ca-leaving', { days: 30 });
    const two = makeCa('ca-staying', { days: 30 });
    const files = { ...issue('passkeys', two), caFile: bundle('rotating', one, two) };
    const registry = observed(files);
    const watched = watchedCertificatesOf({ ...files, reloadIntervalMs: 50 })!;
    // The files are read again only while a server or channel listens.
    const listener = () => undefined;
    watched.addCaCertificateListener(listener);
    try {
      expect(await series(registry, 'grpc_tls_trusted_ca_info')).toHaveLength(2);
      writeFileSync(files.caFile, readFileSync(two.crt, 'utf8'));
      const deadline = Date.now() + 5_000;
      let now = await series(registry, 'grpc_tls_trusted_ca_info');
      while (now.length !== 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        now = await series(registry, 'grpc_tls_trusted_ca_info');
      }
      expect(now).toEqual([{ labels: { bundle: 'units', key_id: keyIdOf(two.crt), subject: 'CN=ca-staying' }, value: 1 }]);
      expect(await series(registry, 'grpc_tls_trusted_ca_expiry_timestamp_seconds')).toHaveLength(1);
    } finally {
      watched.removeCaCertificateListener(listener);
    }
  });
});
