import type { ServiceProviderUrls } from './service-provider-urls';

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The service provider's metadata (SAML 2.0 Metadata §2.4.4): the entity
 * id, the assertion consumer service (HTTP-POST, the only binding the ACS
 * takes), that assertions must be signed, and, when the connection has a
 * key pair, the encryption certificate and the algorithms it decrypts.
 * Made here rather than by the SAML library because the library adds the
 * encryption certificate only when handed the private key, which metadata,
 * a public document, has no business opening.
 */
export function serviceProviderMetadataXml(urls: ServiceProviderUrls, encryptionCertificate: string | undefined): string {
  const keyDescriptor =
    encryptionCertificate === undefined
      ? ''
      : [
          '    <md:KeyDescriptor use="encryption">',
          '      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">',
          `        <ds:X509Data><ds:X509Certificate>${escapeXml(encryptionCertificate)}</ds:X509Certificate></ds:X509Data>`,
          '      </ds:KeyInfo>',
          '      <md:EncryptionMethod Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"/>',
          '      <md:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes256-cbc"/>',
          '      <md:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"/>',
          '    </md:KeyDescriptor>',
          '',
        ].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeXml(urls.entityId)}">`,
    '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    `${keyDescriptor}    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>`,
    `    <md:AssertionConsumerService index="1" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(urls.acsUrl)}"/>`,
    '  </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}
