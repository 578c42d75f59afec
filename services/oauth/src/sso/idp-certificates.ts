import { X509Certificate } from 'node:crypto';

/** At most two: the current signing certificate and the next one, during a rollover (docs/sso.md, "Certificate rollover"). */
export const MAX_IDP_CERTIFICATES = 2;

/**
 * An identity provider's signing certificate as given (PEM, or the base64
 * DER of metadata's X509Certificate), as the base64 DER a connection
 * stores; undefined when it is no X.509 certificate.
 */
export function normalizeCertificate(text: string): string | undefined {
  const body = text
    .replace(/-----BEGIN CERTIFICATE-----/g, '')
    .replace(/-----END CERTIFICATE-----/g, '')
    .replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined;
  const der = Buffer.from(body, 'base64');
  try {
    // Parsing proves it is a certificate; the expiry is the IdP's to manage
    // (many sign with long-expired self-signed certificates, and SAML trusts
    // the configured key, not a chain), so it is not checked.
    new X509Certificate(der);
  } catch {
    return undefined;
  }
  return der.toString('base64');
}

/** A stored certificate as PEM, for the signature checks. */
export function certificatePem(base64Der: string): string {
  const lines = base64Der.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
