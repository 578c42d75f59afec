import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The three PEM files a unit reads from GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE and GRPC_TLS_CA_FILE. */
export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
}

export interface IssueOptions {
  /** Days of validity (2 by default): a rotation test tells certificates apart by their notAfter. */
  readonly days?: number;
  /** More subject alternative names, as openssl writes them (`URI:urn:latchkey:admin-cli`, `DNS:billing.example`). */
  readonly subjectAltNames?: readonly string[];
  /** Distinguishes the files of a second certificate for the same name. */
  readonly label?: string;
}

/** A certificate authority on disk, and the certificates it issued. */
export interface TestCertificateAuthority {
  readonly caFile: string;
  /** A client-and-server certificate whose Subject CN is `commonName`, valid for localhost and 127.0.0.1. */
  issue(commonName: string, options?: IssueOptions): CertificateFiles;
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/**
 * A throwaway CA for tests of mutual TLS, made with the openssl command line
 * (Node can verify certificates but not issue them). Each unit certificate
 * is named like the chart names them (docs/operations.md, "Mutual TLS"):
 * the unit's name as Subject CN, usable by client and server.
 */
export function createTestCertificateAuthority(directory: string, name = 'latchkey-test-ca'): TestCertificateAuthority {
  mkdirSync(directory, { recursive: true });
  const caFile = path.join(directory, `${name}.crt`);
  const caKey = path.join(directory, `${name}.key`);
  openssl(['req', '-x509', ...keyArgs, '-keyout', caKey, '-out', caFile, '-days', '30', '-subj', `/CN=${name}`]);
  return {
    caFile,
    issue(commonName, options = {}) {
      const base = path.join(directory, `${name}-${commonName}${options.label ? `-${options.label}` : ''}`);
      const files = { certFile: `${base}.crt`, keyFile: `${base}.key`, caFile };
      const extensions = `${base}.ext`;
      writeFileSync(
        extensions,
        [
          'basicConstraints=critical,CA:FALSE',
          'keyUsage=critical,digitalSignature',
          'extendedKeyUsage=serverAuth,clientAuth',
          `subjectAltName=${['DNS:localhost', 'IP:127.0.0.1', ...(options.subjectAltNames ?? [])].join(',')}`,
        ].join('\n'),
      );
      openssl(['req', ...keyArgs, '-keyout', files.keyFile, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`]);
      openssl([
        'x509', '-req', '-in', `${base}.csr`, '-CA', caFile, '-CAkey', caKey, '-days', String(options.days ?? 2),
        '-set_serial', `0x${randomBytes(16).toString('hex')}`, '-extfile', extensions, '-out', files.certFile,
      ]);
      return files;
    },
  };
}

/**
 * AUTH_JWT_SIGNING_KEYS with one fresh Ed25519 key, for a gateway a test
 * starts on its own; with `openIdProvider`, an RSA key too, which a unit
 * with OIDC_ENABLED needs (RS256 is the ID tokens' default).
 */
export function testSigningKeys(kid = 'test', options: { readonly openIdProvider?: boolean } = {}): string {
  const keys = [{ kid, ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) }];
  if (options.openIdProvider) keys.push({ kid: `${kid}-rsa`, ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) });
  return JSON.stringify(keys);
}
