import type { Element } from '@xmldom/xmldom';
import { MAX_IDP_CERTIFICATES, normalizeCertificate } from './idp-certificates';
import { SAML_NAMESPACES, UntrustedXmlError, childElements, parseUntrustedXml, singleChild, textOf } from './untrusted-xml';

/** Metadata of one IdP is a few kilobytes; Entra ID's, with its certificates, under 20. */
export const MAX_IDP_METADATA_BYTES = 256 * 1024;

const HTTP_REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What a SAML connection needs of its identity provider. */
export interface IdpDescriptor {
  readonly entityId: string;
  /** Where AuthnRequests go by HTTP-Redirect. */
  readonly ssoUrl: string;
  /** Signing certificates, base64 DER. */
  readonly certificates: readonly string[];
}

/** Metadata that is not one usable IdP descriptor; the message is safe to show the administrator. */
export class IdpMetadataError extends Error {
  override readonly name = 'IdpMetadataError';
}

/**
 * Reads an identity provider's metadata (SAML 2.0 Metadata §2.4.3): the
 * entity id, the HTTP-Redirect SingleSignOnService and the signing
 * certificates. Accepts an EntityDescriptor, or an EntitiesDescriptor
 * holding exactly one IdP. Nothing here is trusted: the administrator
 * pasted it, so it is parsed as untrusted XML (no DOCTYPE, size limit).
 */
export function parseIdpMetadata(xml: string): IdpDescriptor {
  let root: Element;
  try {
    root = parseUntrustedXml(xml, MAX_IDP_METADATA_BYTES);
  } catch (error) {
    if (error instanceof UntrustedXmlError) throw new IdpMetadataError(error.message);
    throw error;
  }
  const candidates =
    root.namespaceURI === SAML_NAMESPACES.md && root.localName === 'EntitiesDescriptor'
      ? childElements(root, SAML_NAMESPACES.md, 'EntityDescriptor')
      : [root];
  const idps = candidates.filter(
    (entity) =>
      entity.namespaceURI === SAML_NAMESPACES.md &&
      entity.localName === 'EntityDescriptor' &&
      childElements(entity, SAML_NAMESPACES.md, 'IDPSSODescriptor').length > 0,
  );
  if (idps.length !== 1) throw new IdpMetadataError('the metadata must describe exactly one identity provider (an EntityDescriptor with an IDPSSODescriptor)');
  const [entity] = idps as [Element];
  const entityId = entity.getAttribute('entityID')?.trim() ?? '';
  if (entityId === '') throw new IdpMetadataError('the EntityDescriptor has no entityID');

  let descriptor: Element | undefined;
  try {
    descriptor = singleChild(entity, SAML_NAMESPACES.md, 'IDPSSODescriptor');
  } catch {
    throw new IdpMetadataError('the EntityDescriptor has more than one IDPSSODescriptor');
  }
  if (!descriptor) throw new IdpMetadataError('the EntityDescriptor has no IDPSSODescriptor');

  const redirect = childElements(descriptor, SAML_NAMESPACES.md, 'SingleSignOnService').find(
    (service) => service.getAttribute('Binding') === HTTP_REDIRECT_BINDING,
  );
  const ssoUrl = redirect?.getAttribute('Location')?.trim() ?? '';
  if (ssoUrl === '') throw new IdpMetadataError('the IDPSSODescriptor has no SingleSignOnService with the HTTP-Redirect binding');

  const certificates: string[] = [];
  for (const key of childElements(descriptor, SAML_NAMESPACES.md, 'KeyDescriptor')) {
    // A KeyDescriptor without `use` is for both signing and encryption (§2.4.1.1).
    const use = key.getAttribute('use');
    if (use !== null && use !== '' && use !== 'signing') continue;
    for (const keyInfo of childElements(key, SAML_NAMESPACES.ds, 'KeyInfo')) {
      for (const data of childElements(keyInfo, SAML_NAMESPACES.ds, 'X509Data')) {
        for (const certificate of childElements(data, SAML_NAMESPACES.ds, 'X509Certificate')) {
          const normalized = normalizeCertificate(textOf(certificate));
          if (normalized === undefined) throw new IdpMetadataError('an X509Certificate of the metadata is not a certificate');
          if (!certificates.includes(normalized)) certificates.push(normalized);
        }
      }
    }
  }
  if (certificates.length === 0) throw new IdpMetadataError('the IDPSSODescriptor has no signing certificate');
  if (certificates.length > MAX_IDP_CERTIFICATES) {
    throw new IdpMetadataError(`the metadata lists ${certificates.length} signing certificates; at most ${MAX_IDP_CERTIFICATES} are kept`);
  }
  return { entityId, ssoUrl, certificates };
}
