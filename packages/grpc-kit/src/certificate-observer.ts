import type { Logger } from '@latchkey/telemetry';
import { Counter, Gauge, type Registry } from 'prom-client';
import { watchedCertificatesOf, type TlsFiles } from './tls';
import type { CertificateEvent, WatchedCertificates } from './watched-certificates';

/**
 * Logs every reload of a unit's mutual-TLS files and exports what is in use,
 * so that an operator sees a renewal arrive (or not) without a restart:
 * - `grpc_tls_certificate_expiry_timestamp_seconds`: when the certificate
 *   the unit presents expires (the alert LatchkeyCertificateExpiring);
 * - `grpc_tls_ca_certificates{bundle}`: how many CA certificates a bundle
 *   holds (`units`, and `platform_clients` on the units that serve the
 *   platform APIs), 2 during a CA rotation's overlap;
 * - `grpc_tls_trusted_ca_info{bundle,key_id,subject}`: 1 for each CA a
 *   bundle holds, named by its key identifier (key-identifiers.ts), and
 *   `grpc_tls_trusted_ca_expiry_timestamp_seconds{bundle,key_id,subject}`
 *   when it expires;
 * - `grpc_tls_certificate_issuer_info{key_id}`: 1, the key identifier of
 *   the CA that issued the certificate the unit presents. With the CAs its
 *   peers trust, the alert LatchkeyTrustSplit finds a pod that would refuse
 *   another's certificate (docs/operations.md, "Mutual TLS");
 * - `grpc_tls_reloads_total{outcome}`: files read again and taken
 *   (`loaded`) or refused (`rejected`, the last good ones stay in use).
 * Nothing when the unit runs without TLS.
 */
export function observeCertificates(options: {
  readonly registry: Registry;
  readonly logger: Logger;
  readonly units: TlsFiles;
  /** The platform clients' CA bundle, on the units that serve a platform API. */
  readonly platformClients?: TlsFiles;
}): void {
  const units = watchedCertificatesOf(options.units);
  if (!units) return;
  const bundles: [string, WatchedCertificates][] = [['units', units]];
  const platform = options.platformClients && watchedCertificatesOf(options.platformClients);
  if (platform) bundles.push(['platform_clients', platform]);

  new Gauge({
    name: 'grpc_tls_certificate_expiry_timestamp_seconds',
    help: 'When the certificate this unit presents expires (Unix seconds), as loaded now.',
    registers: [options.registry],
    collect() {
      this.set(units.loaded().certificateNotAfter / 1000);
    },
  });
  new Gauge({
    name: 'grpc_tls_ca_certificates',
    help: 'CA certificates in a trusted bundle, as loaded now: units (peers) or platform_clients.',
    labelNames: ['bundle'],
    registers: [options.registry],
    collect() {
      for (const [bundle, watched] of bundles) this.set({ bundle }, watched.loaded().caCertificates);
    },
  });
  new Gauge({
    name: 'grpc_tls_trusted_ca_info',
    help: 'A CA certificate in a trusted bundle, as loaded now, by its key identifier: units (peers) or platform_clients. Always 1.',
    labelNames: ['bundle', 'key_id', 'subject'],
    registers: [options.registry],
    collect() {
      // A CA taken out of a bundle must disappear from the scrape, not stay at its last value.
      this.reset();
      for (const [bundle, watched] of bundles) {
        for (const { keyId, subject } of watched.loaded().trustedAuthorities) this.set({ bundle, key_id: keyId, subject }, 1);
      }
    },
  });
  new Gauge({
    name: 'grpc_tls_trusted_ca_expiry_timestamp_seconds',
    help: 'When a CA certificate of a trusted bundle expires (Unix seconds), as loaded now; the latest of those with one key.',
    labelNames: ['bundle', 'key_id', 'subject'],
    registers: [options.registry],
    collect() {
      this.reset();
      for (const [bundle, watched] of bundles) {
        // A CA renewed with its key kept can sit in a bundle twice; it is trusted until the later one ends, set last.
        const byExpiry = [...watched.loaded().trustedAuthorities].sort((a, b) => a.notAfter - b.notAfter);
        for (const { keyId, subject, notAfter } of byExpiry) this.set({ bundle, key_id: keyId, subject }, notAfter / 1000);
      }
    },
  });
  new Gauge({
    name: 'grpc_tls_certificate_issuer_info',
    help: 'The key identifier of the CA that issued the certificate this unit presents, as loaded now. Always 1.',
    labelNames: ['key_id'],
    registers: [options.registry],
    collect() {
      this.reset();
      const issuer = units.loaded().issuerKeyId;
      if (issuer !== undefined) this.set({ key_id: issuer }, 1);
    },
  });
  const reloads = new Counter({
    name: 'grpc_tls_reloads_total',
    help: 'Mutual-TLS files read again: loaded, or rejected (unreadable, unparsable, a key that does not match).',
    labelNames: ['outcome'],
    registers: [options.registry],
  });
  reloads.inc({ outcome: 'loaded' }, 0);
  reloads.inc({ outcome: 'rejected' }, 0);

  for (const [bundle, watched] of bundles) {
    watched.observe((event: CertificateEvent) => {
      // Both bundles go with the same certificate: its reload is the units bundle's to report.
      if (bundle !== 'units' && event.what === 'certificate') return;
      reloads.inc({ outcome: event.type });
      if (event.type === 'rejected') {
        options.logger.warn({ bundle, what: event.what, reason: event.reason }, 'tls files refused; the ones in use stay');
        return;
      }
      options.logger.info(
        {
          bundle,
          what: event.what,
          not_after: new Date(event.loaded.certificateNotAfter).toISOString(),
          serial: event.loaded.certificateSerial,
          ca_certificates: event.loaded.caCertificates,
        },
        'tls files reloaded',
      );
    });
  }
}
