import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { authorityKeyIdentifierOf, subjectKeyIdentifierOf } from './key-identifiers';
import {
  experimental,
  type experimental as Experimental,
} from '@grpc/grpc-js';

type CertificateProvider = Experimental.CertificateProvider;
type CaCertificateUpdate = Experimental.CaCertificateUpdate;
type CaCertificateUpdateListener = Experimental.CaCertificateUpdateListener;
type IdentityCertificateUpdate = Experimental.IdentityCertificateUpdate;
type IdentityCertificateUpdateListener = Experimental.IdentityCertificateUpdateListener;

/** The three PEM files of mutual TLS, and how often they are read again. */
export interface WatchedFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
  readonly reloadIntervalMs: number;
}

/** What a unit presents and trusts right now, for its metrics and logs. */
export interface LoadedCertificates {
  /** Its own certificate's notAfter, ms since the epoch. */
  readonly certificateNotAfter: number;
  readonly certificateSerial: string;
  /** SHA-256 of its own certificate, as openssl prints it. */
  readonly certificateFingerprint: string;
  /** How many CA certificates the bundle holds: 2 during a CA rotation's overlap. */
  readonly caCertificates: number;
  /** The CAs the bundle holds, in its order. */
  readonly trustedAuthorities: readonly TrustedAuthority[];
  /**
   * The key identifier of the CA that issued its own certificate (its
   * Authority Key Identifier, or else the bundle's CA that verifies it);
   * undefined when neither tells.
   */
  readonly issuerKeyId: string | undefined;
}

/** One CA certificate of a trusted bundle. */
export interface TrustedAuthority {
  /** The CA's key identifier, as openssl prints it (see key-identifiers.ts). */
  readonly keyId: string;
  readonly subject: string;
  /** Its notAfter, ms since the epoch. */
  readonly notAfter: number;
}

/** What happened when the files were read again. */
export type CertificateEvent =
  | { readonly type: 'loaded'; readonly what: 'certificate' | 'ca bundle'; readonly loaded: LoadedCertificates }
  | { readonly type: 'rejected'; readonly what: 'certificate' | 'ca bundle'; readonly reason: string };

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificate and key as a unit presents them; throws when they are unusable together. */
function checkIdentity(update: IdentityCertificateUpdate): X509Certificate {
  const certificate = new X509Certificate(update.certificate);
  if (!certificate.checkPrivateKey(createPrivateKey(update.privateKey))) {
    throw new Error('the private key does not belong to the certificate');
  }
  // Read now for the same reason as the CAs' key identifiers (checkCaBundle).
  authorityKeyIdentifierOf(certificate);
  return certificate;
}

/** The certificates of a CA bundle; throws when one of them does not parse or there is none. */
function checkCaBundle(update: CaCertificateUpdate): X509Certificate[] {
  const blocks = update.caCertificate.toString('utf8').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error('the CA bundle holds no PEM certificate');
  const certificates = blocks.map((block) => new X509Certificate(block));
  // Their key identifiers are read now, so that a bundle whose extensions do not parse is refused like any bad bundle.
  for (const certificate of certificates) subjectKeyIdentifierOf(certificate);
  return certificates;
}

function describeAuthority(certificate: X509Certificate): TrustedAuthority {
  // A one-line subject, as `openssl x509 -subject` prints it, for the metric's label.
  return { keyId: subjectKeyIdentifierOf(certificate), subject: certificate.subject.split('\n').join(', '), notAfter: Date.parse(certificate.validTo) };
}

function issuerKeyIdOf(certificate: X509Certificate, authorities: readonly X509Certificate[]): string | undefined {
  const declared = authorityKeyIdentifierOf(certificate);
  if (declared !== undefined) return declared;
  const issuer = authorities.find((authority) => certificate.checkIssued(authority) && certificate.verify(authority.publicKey));
  return issuer && subjectKeyIdentifierOf(issuer);
}

/**
 * The files of one unit's mutual TLS, watched: gRPC servers and channels
 * take them through grpc-js's certificate-provider credentials, which start
 * every new connection with what this provider handed them last, so a
 * certificate renewed on disk (cert-manager and the kubelet replace the
 * mounted Secret's files) is presented, and a new CA bundle trusted, without
 * a restart. It reads the files with grpc-js's FileWatcherCertificateProvider
 * and hands on only what parses and belongs together: a key that does not
 * match its certificate (caught between two writes) or a bundle that does
 * not parse leaves the last good material in use, and says so.
 */
export class WatchedCertificates implements CertificateProvider {
  private readonly source: Experimental.FileWatcherCertificateProvider;
  private identity: IdentityCertificateUpdate;
  private ca: CaCertificateUpdate;
  private certificate: X509Certificate;
  private authorities: X509Certificate[];
  private readonly identityListeners = new Set<IdentityCertificateUpdateListener>();
  private readonly caListeners = new Set<CaCertificateUpdateListener>();
  private readonly observers = new Set<(event: CertificateEvent) => void>();

  /** Reads the files once at once, so that a missing or bad file fails the start with its name. */
  constructor(private readonly files: WatchedFiles) {
    this.identity = { certificate: this.read(files.certFile, 'GRPC_TLS_CERT_FILE'), privateKey: this.read(files.keyFile, 'GRPC_TLS_KEY_FILE') };
    this.ca = { caCertificate: this.read(files.caFile, 'GRPC_TLS_CA_FILE') };
    try {
      this.certificate = checkIdentity(this.identity);
    } catch (error) {
      throw new Error(`${files.certFile} and ${files.keyFile}: ${(error as Error).message}`, { cause: error });
    }
    try {
      this.authorities = checkCaBundle(this.ca);
    } catch (error) {
      throw new Error(`${files.caFile}: ${(error as Error).message}`, { cause: error });
    }
    this.source = new experimental.FileWatcherCertificateProvider({
      certificateFile: files.certFile,
      privateKeyFile: files.keyFile,
      caCertificateFile: files.caFile,
      refreshIntervalMs: files.reloadIntervalMs,
    });
  }

  /** What is in use now. */
  loaded(): LoadedCertificates {
    return {
      certificateNotAfter: Date.parse(this.certificate.validTo),
      certificateSerial: this.certificate.serialNumber,
      certificateFingerprint: this.certificate.fingerprint256,
      caCertificates: this.authorities.length,
      trustedAuthorities: this.authorities.map(describeAuthority),
      issuerKeyId: issuerKeyIdOf(this.certificate, this.authorities),
    };
  }

  /** Calls `observer` on every reload and every refused file; answers how to stop. */
  observe(observer: (event: CertificateEvent) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  addIdentityCertificateListener(listener: IdentityCertificateUpdateListener): void {
    this.identityListeners.add(listener);
    this.startWatching();
    process.nextTick(listener, this.identity);
  }

  removeIdentityCertificateListener(listener: IdentityCertificateUpdateListener): void {
    this.identityListeners.delete(listener);
    this.stopWatchingWhenUnused();
  }

  addCaCertificateListener(listener: CaCertificateUpdateListener): void {
    this.caListeners.add(listener);
    this.startWatching();
    process.nextTick(listener, this.ca);
  }

  removeCaCertificateListener(listener: CaCertificateUpdateListener): void {
    this.caListeners.delete(listener);
    this.stopWatchingWhenUnused();
  }

  private read(file: string, variable: string): Buffer {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${variable}: cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  }

  // The file watcher reads on a timer only while someone listens, so a closed server or channel leaves nothing running.
  private readonly onIdentity = (update: IdentityCertificateUpdate | null): void => {
    if (update === null) return this.reject('certificate', `cannot read ${this.files.certFile} or ${this.files.keyFile}`);
    if (update.certificate.equals(this.identity.certificate) && update.privateKey.equals(this.identity.privateKey)) return;
    let certificate: X509Certificate;
    try {
      certificate = checkIdentity(update);
    } catch (error) {
      return this.reject('certificate', (error as Error).message);
    }
    this.identity = update;
    this.certificate = certificate;
    this.emit({ type: 'loaded', what: 'certificate', loaded: this.loaded() });
    for (const listener of this.identityListeners) listener(update);
  };

  private readonly onCa = (update: CaCertificateUpdate | null): void => {
    if (update === null) return this.reject('ca bundle', `cannot read ${this.files.caFile}`);
    if (update.caCertificate.equals(this.ca.caCertificate)) return;
    let authorities: X509Certificate[];
    try {
      authorities = checkCaBundle(update);
    } catch (error) {
      return this.reject('ca bundle', (error as Error).message);
    }
    this.ca = update;
    this.authorities = authorities;
    this.emit({ type: 'loaded', what: 'ca bundle', loaded: this.loaded() });
    for (const listener of this.caListeners) listener(update);
  };

  private startWatching(): void {
    if (this.identityListeners.size + this.caListeners.size !== 1) return;
    this.source.addIdentityCertificateListener(this.onIdentity);
    this.source.addCaCertificateListener(this.onCa);
  }

  private stopWatchingWhenUnused(): void {
    if (this.identityListeners.size + this.caListeners.size !== 0) return;
    this.source.removeIdentityCertificateListener(this.onIdentity);
    this.source.removeCaCertificateListener(this.onCa);
  }

  private reject(what: 'certificate' | 'ca bundle', reason: string): void {
    this.emit({ type: 'rejected', what, reason });
  }

  private emit(event: CertificateEvent): void {
    for (const observer of this.observers) observer(event);
  }
}

