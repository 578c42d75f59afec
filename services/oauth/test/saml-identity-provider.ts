import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';

/**
 * The part of samlify's API this IdP uses. samlify is loaded through
 * require: its type declarations reference the DOM library (through
 * @xmldom/xmldom 0.8), which would put browser globals into the whole
 * program's type checking.
 */
interface Samlify {
  readonly Constants: { readonly namespace: { readonly binding: { readonly redirect: string; readonly post: string } } };
  IdentityProvider(settings: Record<string, unknown>): {
    createLoginResponse(
      sp: unknown,
      requestInfo: { extract: { request: { id: string } } },
      binding: 'post',
      user: { email: string },
      customTagReplacement: (template: string) => { id: string; context: string },
    ): Promise<{ context: string }>;
  };
  ServiceProvider(settings: Record<string, unknown>): unknown;
}

const samlify = createRequire(__filename)(require.resolve('samlify')) as Samlify;

/** An RSA key pair with a self-signed certificate, as an IdP (or an SP for encryption) holds one. */
export interface KeyPair {
  readonly privateKey: string;
  readonly certificate: string;
}

/** Made with the openssl command line: Node verifies certificates but does not issue them. */
export function newKeyPair(commonName: string): KeyPair {
  const directory = mkdtempSync(path.join(tmpdir(), 'latchkey-saml-'));
  try {
    const keyFile = path.join(directory, 'key.pem');
    const certFile = path.join(directory, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${commonName}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return { privateKey: readFileSync(keyFile, 'utf8'), certificate: readFileSync(certFile, 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** What the service provider under test is, as the IdP's administrator configured it. */
export interface ServiceProviderView {
  readonly entityId: string;
  readonly acsUrl: string;
  /** The SP's encryption certificate, when assertions are encrypted for it. */
  readonly encryptionCertificate?: string;
}

/** The content of one response; each field can be made wrong on purpose. */
export interface ResponseSpec {
  readonly issuer: string;
  readonly nameId: string;
  /** The InResponseTo of the Response and of the SubjectConfirmationData; '' for an IdP-initiated response. */
  readonly inResponseTo: string;
  readonly audience: string;
  readonly recipient: string;
  /** The Response's Destination; null leaves it out. */
  readonly destination: string | null;
  readonly notBefore: Date;
  readonly notOnOrAfter: Date;
  readonly assertionId?: string;
  /** false leaves Conditions out. */
  readonly conditions?: boolean;
  readonly confirmationMethod?: string;
  readonly statusCode?: string;
  readonly attributes?: Readonly<Record<string, readonly string[]>>;
}

export type Signing = 'assertion' | 'response' | 'both';

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function samlId(): string {
  return `_${randomBytes(16).toString('hex')}`;
}

/** A saml:Assertion element of the spec, unsigned. */
export function assertionXml(spec: ResponseSpec): string {
  const attributes = Object.entries(spec.attributes ?? {})
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values
          .map((value) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  const inResponseTo = spec.inResponseTo === '' ? '' : ` InResponseTo="${escapeXml(spec.inResponseTo)}"`;
  const now = new Date().toISOString();
  const conditions =
    spec.conditions === false
      ? ''
      : `<saml:Conditions NotBefore="${spec.notBefore.toISOString()}" NotOnOrAfter="${spec.notOnOrAfter.toISOString()}"><saml:AudienceRestriction><saml:Audience>${escapeXml(spec.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`;
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${spec.assertionId ?? samlId()}" Version="2.0" IssueInstant="${now}">` +
    `<saml:Issuer>${escapeXml(spec.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(spec.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="${spec.confirmationMethod ?? 'urn:oasis:names:tc:SAML:2.0:cm:bearer'}"><saml:SubjectConfirmationData NotOnOrAfter="${spec.notOnOrAfter.toISOString()}" Recipient="${escapeXml(spec.recipient)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    conditions +
    `<saml:AuthnStatement AuthnInstant="${now}" SessionIndex="${samlId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes === '' ? '' : `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>`) +
    `</saml:Assertion>`
  );
}

/** A samlp:Response around the spec's assertion, unsigned. */
export function responseXml(spec: ResponseSpec): string {
  const destination = spec.destination === null ? '' : ` Destination="${escapeXml(spec.destination)}"`;
  const inResponseTo = spec.inResponseTo === '' ? '' : ` InResponseTo="${escapeXml(spec.inResponseTo)}"`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${samlId()}" Version="2.0" IssueInstant="${new Date().toISOString()}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${escapeXml(spec.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${spec.statusCode ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>` +
    assertionXml(spec) +
    `</samlp:Response>`
  );
}

/**
 * An identity provider built on samlify, a SAML implementation other than
 * the node-saml the service provider uses, so that a shared misreading of
 * the specification cannot make a test pass. It signs (and encrypts) the
 * responses a test describes; tests then tamper with them.
 */
export class SamlIdentityProvider {
  readonly entityId: string;
  readonly keys: KeyPair;

  constructor(entityId: string, keys: KeyPair = newKeyPair('test-idp')) {
    this.entityId = entityId;
    this.keys = keys;
  }

  /** The response of the spec, signed as asked with this IdP's key (or `signingKeys`), base64 as the browser posts it. */
  async signedResponse(sp: ServiceProviderView, spec: ResponseSpec, options: { signing?: Signing; encrypt?: boolean; signingKeys?: KeyPair } = {}): Promise<string> {
    const signing = options.signing ?? 'assertion';
    const keys = options.signingKeys ?? this.keys;
    const identityProvider = samlify.IdentityProvider({
      entityID: spec.issuer,
      privateKey: keys.privateKey,
      signingCert: keys.certificate,
      isAssertionEncrypted: options.encrypt ?? false,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: 'https://idp.test/sso' }],
      singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: 'https://idp.test/slo' }],
    });
    const serviceProvider = samlify.ServiceProvider({
      entityID: sp.entityId,
      assertionConsumerService: [{ Binding: samlify.Constants.namespace.binding.post, Location: sp.acsUrl }],
      wantAssertionsSigned: signing !== 'response',
      wantMessageSigned: signing !== 'assertion',
      ...(sp.encryptionCertificate ? { encryptCert: sp.encryptionCertificate } : {}),
    });
    const xml = responseXml(spec);
    const { context } = await identityProvider.createLoginResponse(serviceProvider, { extract: { request: { id: spec.inResponseTo } } }, 'post', { email: spec.nameId }, () => ({
      id: samlId(),
      context: xml,
    }));
    return context;
  }
}

/** The XML of a posted SAMLResponse. */
export function decodeResponse(samlResponse: string): string {
  return Buffer.from(samlResponse, 'base64').toString('utf8');
}

export function encodeResponse(xml: string): string {
  return Buffer.from(xml, 'utf8').toString('base64');
}

/** The ID of the AuthnRequest an HTTP-Redirect URL carries (SAML 2.0 Bindings §3.4.4.1: DEFLATE, base64). */
export function authnRequestOf(url: string): { id: string; xml: string } {
  const request = new URL(url).searchParams.get('SAMLRequest');
  if (!request) throw new Error(`no SAMLRequest in ${url}`);
  const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error('the AuthnRequest has no ID');
  return { id, xml };
}
