import { createHash, type X509Certificate } from 'node:crypto';

/**
 * Key identifiers of X.509 certificates (RFC 5280, 4.2.1.1 and 4.2.1.2), as
 * `openssl x509 -noout -ext subjectKeyIdentifier` prints them. A CA is
 * named by its key, not by its certificate's fingerprint: a CA renewed with
 * its key kept (the chart's, docs/operations.md "Mutual TLS") is a new
 * certificate that still verifies every certificate the old one issued, so
 * both must count as the same CA.
 */

/** One DER element: its tag and where its contents start and end in the buffer. */
interface DerElement {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

const SEQUENCE = 0x30;
const OCTET_STRING = 0x04;
const BIT_STRING = 0x03;
const OBJECT_IDENTIFIER = 0x06;
const EXTENSIONS = 0xa3;
const KEY_IDENTIFIER = 0x80;
// The contents of the OIDs id-ce-subjectKeyIdentifier (2.5.29.14) and id-ce-authorityKeyIdentifier (2.5.29.35).
const SUBJECT_KEY_IDENTIFIER_OID = Buffer.from([0x55, 0x1d, 0x0e]);
const AUTHORITY_KEY_IDENTIFIER_OID = Buffer.from([0x55, 0x1d, 0x23]);

function elementAt(der: Buffer, offset: number, limit: number): DerElement {
  if (offset + 2 > limit) throw new Error('truncated DER element');
  const tag = der[offset]!;
  const first = der[offset + 1]!;
  let start = offset + 2;
  let length = first;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > limit) throw new Error('unsupported DER length');
    length = der.readUIntBE(start, octets);
    start += octets;
  }
  if (start + length > limit) throw new Error('truncated DER element');
  return { tag, start, end: start + length };
}

function childrenOf(der: Buffer, parent: DerElement): DerElement[] {
  const children: DerElement[] = [];
  for (let offset = parent.start; offset < parent.end; ) {
    const child = elementAt(der, offset, parent.end);
    children.push(child);
    offset = child.end;
  }
  return children;
}

const contentsOf = (der: Buffer, element: DerElement): Buffer => der.subarray(element.start, element.end);

const hexIdentifier = (bytes: Buffer): string => [...bytes].map((byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':');

/** The value (the extnValue's contents) of the extension `oid` of a certificate, if it has one. */
function extensionValue(certificate: X509Certificate, oid: Buffer): { der: Buffer; value: DerElement } | undefined {
  const der = certificate.raw;
  const [tbs] = childrenOf(der, elementAt(der, 0, der.length));
  if (!tbs || tbs.tag !== SEQUENCE) throw new Error('not an X.509 certificate');
  const extensions = childrenOf(der, tbs).find((element) => element.tag === EXTENSIONS);
  if (!extensions) return undefined;
  const [list] = childrenOf(der, extensions);
  for (const extension of list ? childrenOf(der, list) : []) {
    const parts = childrenOf(der, extension);
    if (parts[0]?.tag !== OBJECT_IDENTIFIER || !contentsOf(der, parts[0]).equals(oid)) continue;
    const octets = parts[parts.length - 1]!;
    if (octets.tag !== OCTET_STRING) throw new Error('an extension without its value');
    return { der, value: elementAt(der, octets.start, octets.end) };
  }
  return undefined;
}

/**
 * The key identifier of a CA certificate: its Subject Key Identifier, or,
 * without one, the SHA-1 of its public key (RFC 5280's method 1, what
 * OpenSSL and Go's crypto/x509 write there).
 */
export function subjectKeyIdentifierOf(certificate: X509Certificate): string {
  const extension = extensionValue(certificate, SUBJECT_KEY_IDENTIFIER_OID);
  if (extension && extension.value.tag === OCTET_STRING) return hexIdentifier(contentsOf(extension.der, extension.value));
  const spki = certificate.publicKey.export({ type: 'spki', format: 'der' });
  const bitString = childrenOf(spki, elementAt(spki, 0, spki.length))[1];
  if (bitString?.tag !== BIT_STRING) throw new Error('a public key without its bit string');
  // The first octet of a BIT STRING counts its unused bits; the key starts after it.
  return hexIdentifier(createHash('sha1').update(spki.subarray(bitString.start + 1, bitString.end)).digest());
}

/** The key identifier of the CA that issued a certificate, from its Authority Key Identifier; undefined without one. */
export function authorityKeyIdentifierOf(certificate: X509Certificate): string | undefined {
  const extension = extensionValue(certificate, AUTHORITY_KEY_IDENTIFIER_OID);
  if (!extension || extension.value.tag !== SEQUENCE) return undefined;
  const keyIdentifier = childrenOf(extension.der, extension.value).find((element) => element.tag === KEY_IDENTIFIER);
  return keyIdentifier ? hexIdentifier(contentsOf(extension.der, keyIdentifier)) : undefined;
}
