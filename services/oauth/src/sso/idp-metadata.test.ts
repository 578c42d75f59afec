import { IdpMetadataError, parseIdpMetadata } from './idp-metadata';

const CERT =
  'MIIBszCCAVmgAwIBAgIUJ7Z1Pz8QbK1h3e5S6Bq3yF9cL0swCgYIKoZIzj0EAwIwFjEUMBIGA1UEAwwLdGVzdC1pZHAtY2EwHhcNMjQwMTAxMDAwMDAwWhcNMzQwMTAxMDAwMDAwWjAWMRQwEgYDVQQDDAt0ZXN0LWlkcC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABA==';

function metadata(body: string, prefix = ''): string {
  return `${prefix}<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.test">${body}</EntityDescriptor>`;
}

describe('parseIdpMetadata()', () => {
  it('refuses a DOCTYPE before parsing, and names what is missing', () => {
    expect(() => parseIdpMetadata(metadata('', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'))).toThrow(/DOCTYPE/);
    expect(() => parseIdpMetadata(metadata(''))).toThrow(IdpMetadataError);
    expect(() => parseIdpMetadata(metadata('<IDPSSODescriptor protocolSupportEnumeration="x"/>'))).toThrow(/HTTP-Redirect/);
    expect(() => parseIdpMetadata('x'.repeat(300 * 1024))).toThrow(/over/);
    expect(() =>
      parseIdpMetadata(
        metadata(
          `<IDPSSODescriptor protocolSupportEnumeration="x"><KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${CERT}</X509Certificate></X509Data></KeyInfo></KeyDescriptor><SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.test/sso"/></IDPSSODescriptor>`,
        ),
      ),
    ).toThrow(/not a certificate/);
  });
});
