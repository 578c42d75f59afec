import { type ChannelCredentials, ServerCredentials, credentials, experimental } from '@grpc/grpc-js';
import { WatchedCertificates } from './watched-certificates';

/** PEM files for mutual TLS between units, from GRPC_TLS_*_FILE, and how often they are read again. */
export interface TlsFiles {
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly caFile?: string | undefined;
  /** GRPC_TLS_RELOAD_INTERVAL_MS; a minute when unset. */
  readonly reloadIntervalMs?: number | undefined;
}

export const DEFAULT_TLS_RELOAD_INTERVAL_MS = 60_000;

/** One watcher per set of files in a process: the server and every channel of a unit present the same certificate. */
const watchers = new Map<string, WatchedCertificates>();

/**
 * The watched files, or undefined when none is given (plaintext, as on a
 * developer's machine). Throws when only some are given, or one is
 * unreadable or unusable.
 */
export function watchedCertificatesOf(files: TlsFiles): WatchedCertificates | undefined {
  const given = [files.certFile, files.keyFile, files.caFile].filter((file) => file !== undefined);
  if (given.length === 0) return undefined;
  if (given.length !== 3 || !files.certFile || !files.keyFile || !files.caFile) {
    throw new Error('GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE and GRPC_TLS_CA_FILE must be set together');
  }
  const watched = {
    certFile: files.certFile,
    keyFile: files.keyFile,
    caFile: files.caFile,
    reloadIntervalMs: files.reloadIntervalMs ?? DEFAULT_TLS_RELOAD_INTERVAL_MS,
  };
  const key = JSON.stringify(watched);
  let watcher = watchers.get(key);
  if (!watcher) {
    watcher = new WatchedCertificates(watched);
    watchers.set(key, watcher);
  }
  return watcher;
}

/**
 * Plaintext when no files are given; otherwise TLS that also demands a
 * client certificate the CA bundle trusts. New connections use the files as
 * they are now (see WatchedCertificates); established ones keep theirs.
 */
export function serverCredentials(files: TlsFiles): ServerCredentials {
  const watched = watchedCertificatesOf(files);
  if (!watched) return ServerCredentials.createInsecure();
  return experimental.createCertificateProviderServerCredentials(watched, watched, true);
}

/** The client half: presents the unit's certificate and trusts the CA bundle, both as they are on disk now. */
export function channelCredentials(files: TlsFiles): ChannelCredentials {
  const watched = watchedCertificatesOf(files);
  if (!watched) return credentials.createInsecure();
  return experimental.createCertificateProviderChannelCredentials(watched, watched);
}
