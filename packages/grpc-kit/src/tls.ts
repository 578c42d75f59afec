import { readFileSync } from 'node:fs';
import { type ChannelCredentials, ServerCredentials, credentials } from '@grpc/grpc-js';

/** PEM files for mutual TLS between units, from GRPC_TLS_*_FILE. */
export interface TlsFiles {
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly caFile?: string | undefined;
}

interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
}

function readTls(files: TlsFiles): TlsMaterial | undefined {
  const given = [files.certFile, files.keyFile, files.caFile].filter((f) => f !== undefined);
  if (given.length === 0) return undefined;
  if (given.length !== 3 || !files.certFile || !files.keyFile || !files.caFile) {
    throw new Error('GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE and GRPC_TLS_CA_FILE must be set together');
  }
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile), ca: readFileSync(files.caFile) };
}

/** Plaintext when no files are given; otherwise TLS that also demands a client certificate. */
export function serverCredentials(files: TlsFiles): ServerCredentials {
  const tls = readTls(files);
  if (!tls) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true);
}

export function channelCredentials(files: TlsFiles): ChannelCredentials {
  const tls = readTls(files);
  if (!tls) return credentials.createInsecure();
  return credentials.createSsl(tls.ca, tls.key, tls.cert);
}
