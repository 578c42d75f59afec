import { SAML, ValidateInResponseTo, type SamlConfig } from '@node-saml/node-saml';
import type { Element } from '@xmldom/xmldom';
import { AppError } from '@latchkey/errors';
import type { RequestContext } from '@latchkey/grpc-kit';
import { serviceProviderUrls, type ServiceProviderUrls } from './service-provider-urls';
import type { SsoConnection } from './sso-connection-store';
import { idpCertificatePems, spPrivateKeyPem } from './sso-connections';
import type { SsoDeps } from './sso-deps';
import { newSamlRequestId } from './sso-requests';
import { SAML_NAMESPACES, UntrustedXmlError, childElements, parseUntrustedXml, singleChild, textOf } from './untrusted-xml';

type SamlConnection = SsoConnection & { type: 'saml' };

/** docs/api.md, "Enterprise SSO": NotBefore/NotOnOrAfter hold within 60 s of skew. */
export const CLOCK_SKEW_MS = 60_000;
/**
 * A response with a few hundred groups and an encrypted assertion is tens
 * of kilobytes; the limit is checked on the posted base64 before anything
 * is decoded or parsed.
 */
export const MAX_SAML_RESPONSE_BYTES = 256 * 1024;
const MAX_SAML_RESPONSE_BASE64 = Math.ceil(MAX_SAML_RESPONSE_BYTES / 3) * 4;

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** What a valid response says of the person, read from the signed assertion only. */
export interface SamlAssertion {
  /** NameID: the subject this connection knows the person by. */
  readonly subject: string;
  readonly assertionId: string;
  /** The signed SubjectConfirmationData's InResponseTo; empty for an IdP-initiated response. */
  readonly inResponseTo: string;
  readonly notOnOrAfterMs: number;
  /** Attribute values by attribute name. */
  readonly attributes: ReadonlyMap<string, readonly string[]>;
}

/** Why a response was refused: logged for the operator, never shown to the browser beyond sso:response_invalid. */
export class SamlResponseRefused extends Error {
  override readonly name = 'SamlResponseRefused';
}

function samlOf(connection: SamlConnection, urls: ServiceProviderUrls, options: Partial<SamlConfig> = {}): SAML {
  return new SAML({
    callbackUrl: urls.acsUrl,
    issuer: urls.entityId,
    audience: urls.entityId,
    entryPoint: connection.saml.idpSsoUrl,
    idpIssuer: connection.saml.idpEntityId,
    idpCert: idpCertificatePems(connection),
    // docs/api.md: signed Response or Assertion. With both false the
    // library still refuses a response in which neither is validly signed
    // by a configured certificate, and reads the assertion from what was
    // signed only (node-saml 5.1, GHSA-4mxg-3p6v-xgq3).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // InResponseTo is checked by this unit against the signed assertion and
    // the browser that started the request (checkSignedAssertion), not
    // against the unsigned Response attribute the library reads first.
    validateInResponseTo: ValidateInResponseTo.never,
    // No NameID format asked: the IdP's administrator chooses (email or persistent).
    identifierFormat: null,
    // Entra ID refuses a request for PasswordProtectedTransport when the person signed in with MFA.
    disableRequestedAuthnContext: true,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    ...options,
  });
}

function connectionUrls(deps: SsoDeps, connection: SsoConnection): ServiceProviderUrls {
  return serviceProviderUrls(deps.publicUrl, connection.id);
}

/** An AuthnRequest by HTTP-Redirect, its id remembered for this browser and connection. */
export async function startSamlSignIn(
  deps: SsoDeps,
  connection: SamlConnection,
  started: { browserBinding: string; returnTo: string },
): Promise<{ url: string; expiresAt: Date }> {
  const requestId = newSamlRequestId();
  await deps.requests.remember('saml', requestId, { connectionId: connection.id, browserBinding: started.browserBinding, returnTo: started.returnTo });
  const url = await samlOf(connection, connectionUrls(deps, connection), { generateUniqueId: () => requestId }).getAuthorizeUrlAsync('', undefined, {});
  return { url, expiresAt: new Date(deps.now() + deps.requestTtlSeconds * 1000) };
}

function timeOf(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SamlResponseRefused(`${name} is not a time`);
  return ms;
}

function attributesOf(assertion: Element): Map<string, string[]> {
  const attributes = new Map<string, string[]>();
  for (const statement of childElements(assertion, SAML_NAMESPACES.saml, 'AttributeStatement')) {
    for (const attribute of childElements(statement, SAML_NAMESPACES.saml, 'Attribute')) {
      const name = attribute.getAttribute('Name') ?? '';
      if (name === '') continue;
      const values = childElements(attribute, SAML_NAMESPACES.saml, 'AttributeValue').map(textOf);
      attributes.set(name, [...(attributes.get(name) ?? []), ...values]);
    }
  }
  return attributes;
}

/**
 * The checks node-saml leaves to its caller, on the assertion it verified
 * (docs/sso.md, "What a response must satisfy"): the issuer is the
 * connection's IdP; a bearer SubjectConfirmation for this ACS, current;
 * one Conditions, current, for this SP's audience; an ID to remember
 * against replay. The unsigned Response around it may only agree: its
 * Destination and InResponseTo, when present, must be the same.
 */
export function checkSignedAssertion(
  assertionXml: string,
  response: Element,
  expected: { idpEntityId: string; acsUrl: string; entityId: string; nowMs: number },
): SamlAssertion {
  const assertion = parseUntrustedXml(assertionXml, MAX_SAML_RESPONSE_BYTES);
  if (assertion.namespaceURI !== SAML_NAMESPACES.saml || assertion.localName !== 'Assertion') throw new SamlResponseRefused('the signed element is no Assertion');
  const assertionId = assertion.getAttribute('ID') ?? '';
  if (assertionId === '') throw new SamlResponseRefused('the assertion has no ID');

  const issuer = singleChild(assertion, SAML_NAMESPACES.saml, 'Issuer');
  if (!issuer || textOf(issuer) !== expected.idpEntityId) throw new SamlResponseRefused('the assertion is not issued by the connection’s IdP');
  const responseIssuer = singleChild(response, SAML_NAMESPACES.saml, 'Issuer');
  if (responseIssuer && textOf(responseIssuer) !== expected.idpEntityId) throw new SamlResponseRefused('the response is not issued by the connection’s IdP');
  const destination = response.getAttribute('Destination');
  if (destination !== null && destination !== expected.acsUrl) throw new SamlResponseRefused('the response’s Destination is not this ACS');

  const subject = singleChild(assertion, SAML_NAMESPACES.saml, 'Subject');
  const nameId = subject && singleChild(subject, SAML_NAMESPACES.saml, 'NameID');
  const subjectValue = nameId ? textOf(nameId) : '';
  if (!subject || subjectValue === '') throw new SamlResponseRefused('the assertion names no subject');

  const skew = CLOCK_SKEW_MS;
  const now = expected.nowMs;
  const confirmations = childElements(subject, SAML_NAMESPACES.saml, 'SubjectConfirmation').filter(
    (confirmation) => confirmation.getAttribute('Method') === BEARER,
  );
  const confirmed = confirmations.flatMap((confirmation) => {
    const data = singleChild(confirmation, SAML_NAMESPACES.saml, 'SubjectConfirmationData');
    if (!data || data.getAttribute('Recipient') !== expected.acsUrl) return [];
    const notOnOrAfter = timeOf(data.getAttribute('NotOnOrAfter'), 'SubjectConfirmationData NotOnOrAfter');
    const notBefore = timeOf(data.getAttribute('NotBefore'), 'SubjectConfirmationData NotBefore');
    if (notOnOrAfter === undefined || now - skew >= notOnOrAfter) return [];
    if (notBefore !== undefined && now + skew < notBefore) return [];
    return [{ inResponseTo: data.getAttribute('InResponseTo') ?? '' }];
  });
  if (confirmed.length !== 1) throw new SamlResponseRefused('the assertion has no single current bearer confirmation for this ACS');
  const { inResponseTo } = confirmed[0] as { inResponseTo: string };
  const responseInResponseTo = response.getAttribute('InResponseTo');
  if (responseInResponseTo !== null && responseInResponseTo !== inResponseTo) throw new SamlResponseRefused('the response and the assertion answer different requests');

  const conditions = singleChild(assertion, SAML_NAMESPACES.saml, 'Conditions');
  if (!conditions) throw new SamlResponseRefused('the assertion has no Conditions');
  const notOnOrAfter = timeOf(conditions.getAttribute('NotOnOrAfter'), 'Conditions NotOnOrAfter');
  const notBefore = timeOf(conditions.getAttribute('NotBefore'), 'Conditions NotBefore');
  // Without an end the assertion could be replayed after its id is forgotten.
  if (notOnOrAfter === undefined) throw new SamlResponseRefused('the assertion’s Conditions have no NotOnOrAfter');
  if (now - skew >= notOnOrAfter) throw new SamlResponseRefused('the assertion has expired');
  if (notBefore !== undefined && now + skew < notBefore) throw new SamlResponseRefused('the assertion is not valid yet');
  const restrictions = childElements(conditions, SAML_NAMESPACES.saml, 'AudienceRestriction');
  // Every AudienceRestriction must name this SP (SAML 2.0 Core §2.5.1.4).
  const forThisSp =
    restrictions.length > 0 &&
    restrictions.every((restriction) => childElements(restriction, SAML_NAMESPACES.saml, 'Audience').some((audience) => textOf(audience) === expected.entityId));
  if (!forThisSp) throw new SamlResponseRefused('the assertion is not for this SP’s audience');

  return { subject: subjectValue, assertionId, inResponseTo, notOnOrAfterMs: notOnOrAfter, attributes: attributesOf(assertion) };
}

/**
 * Every check of a posted SAMLResponse, in order, before anything is
 * written: size, no DOCTYPE, well-formed, status Success; then node-saml's signature,
 * wrapping, status, time and audience checks; then checkSignedAssertion;
 * then the request it answers (this browser's, unused) or, without one, an
 * IdP-initiated response the connection allows; then the assertion id, never
 * seen before. Any failure is sso:response_invalid.
 */
export async function validateSamlResponse(
  deps: SsoDeps,
  connection: SamlConnection,
  input: { samlResponse: string; browserBinding: string },
  context: RequestContext,
): Promise<SamlAssertion & { returnTo: string }> {
  try {
    return await validatedAssertion(deps, connection, input);
  } catch (error) {
    // The reason is for the operator; the browser learns only that the response was refused.
    context.logger.info({ connection_id: connection.id, reason: error instanceof Error ? error.message : 'unknown' }, 'SAML response refused');
    throw new AppError('sso:response_invalid', undefined, { cause: error });
  }
}

async function validatedAssertion(
  deps: SsoDeps,
  connection: SamlConnection,
  input: { samlResponse: string; browserBinding: string },
): Promise<SamlAssertion & { returnTo: string }> {
  if (input.samlResponse.length > MAX_SAML_RESPONSE_BASE64) throw new SamlResponseRefused('the response is over the size limit');
  if (!/^[A-Za-z0-9+/\r\n]+={0,2}\s*$/.test(input.samlResponse)) throw new SamlResponseRefused('the response is not base64');
  const xml = Buffer.from(input.samlResponse, 'base64').toString('utf8');
  let response: Element;
  try {
    response = parseUntrustedXml(xml, MAX_SAML_RESPONSE_BYTES);
  } catch (error) {
    if (error instanceof UntrustedXmlError) throw new SamlResponseRefused(error.message);
    throw error;
  }
  if (response.namespaceURI !== SAML_NAMESPACES.samlp || response.localName !== 'Response') throw new SamlResponseRefused('the message is no samlp:Response');
  // node-saml reads the status only of a response without an assertion; one that carries an assertion must say Success too.
  const status = singleChild(response, SAML_NAMESPACES.samlp, 'Status');
  const statusCode = status && singleChild(status, SAML_NAMESPACES.samlp, 'StatusCode');
  if (statusCode?.getAttribute('Value') !== SUCCESS) throw new SamlResponseRefused('the response’s status is not Success');
  const encrypted = childElements(response, SAML_NAMESPACES.saml, 'EncryptedAssertion').length > 0;
  const decryptionKey = spPrivateKeyPem(deps, connection);
  // With a key pair the IdP was told to encrypt: an assertion in clear was not made for this SP's configuration.
  if (decryptionKey !== undefined && !encrypted) throw new SamlResponseRefused('the connection expects encrypted assertions');

  const urls = connectionUrls(deps, connection);
  const saml = samlOf(connection, urls, decryptionKey === undefined ? {} : { decryptionPvk: decryptionKey });
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: input.samlResponse });
  const assertionXml = profile?.getAssertionXml?.();
  if (assertionXml === undefined) throw new SamlResponseRefused('the response carries no assertion');
  const assertion = checkSignedAssertion(assertionXml, response, {
    idpEntityId: connection.saml.idpEntityId,
    acsUrl: urls.acsUrl,
    entityId: urls.entityId,
    nowMs: deps.now(),
  });

  // Where the sign-in was going comes from the request this browser started, never from the IdP (its RelayState is not followed).
  let returnTo = '';
  if (assertion.inResponseTo !== '') {
    const request = await deps.requests.redeem('saml', assertion.inResponseTo, { connectionId: connection.id, browserBinding: input.browserBinding });
    if (!request) throw new SamlResponseRefused('InResponseTo is no unused request of this browser');
    returnTo = request.returnTo ?? '';
  } else if (!connection.saml.allowIdpInitiated) {
    throw new SamlResponseRefused('IdP-initiated sign-in is off for this connection');
  }

  const ttlMs = assertion.notOnOrAfterMs + CLOCK_SKEW_MS - deps.now();
  if (!(await deps.requests.markAssertionSeen(connection.id, assertion.assertionId, ttlMs))) throw new SamlResponseRefused('the assertion was used before');
  return { ...assertion, returnTo };
}
