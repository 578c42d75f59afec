import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { ssoV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { createLogger } from '@latchkey/telemetry';
import { waitFor } from '@latchkey/test-kit';
import {
  SamlIdentityProvider,
  assertionXml,
  authnRequestOf,
  decodeResponse,
  encodeResponse,
  newKeyPair,
  responseXml,
  samlId,
  type ResponseSpec,
  type ServiceProviderView,
  type Signing,
} from '../saml-identity-provider';
import { newBrowser, startSsoHarness, type SsoHarness } from '../sso-harness';

/**
 * Enterprise SSO's SAML service provider at sso.v1 (docs/sso.md, "What a
 * response must satisfy"): responses made by another SAML implementation
 * (samlify) and then forged, each refused with nothing created: no account,
 * no membership, no credential-ledger row, no linked subject.
 */
/** Why the unit refused each response, as it logs it for the operator. */
const refusals: string[] = [];
const oauthLogger = createLogger({
  service: 'oauth',
  level: 'info',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as { msg?: string; reason?: string };
        if (entry.msg === 'SAML response refused') refusals.push(entry.reason ?? '');
      }
      done();
    },
  }),
});
const IDP_ENTITY_ID = 'https://idp.acme.test/metadata';
const MINUTE = 60_000;

let harness: SsoHarness;
let sso: SsoHarness['sso'];

const idp = new SamlIdentityProvider(IDP_ENTITY_ID);
const attackerKeys = newKeyPair('attacker');

/** The organisation every case signs in to, its verified domain and its SAML connection. */
let organizationId: string;
let organizationSlug: string;
let domain: string;
let connection: ssoV1.Connection;
let sp: ServiceProviderView;

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  harness = await startSsoHarness({ oauthLogger });
  ({ sso } = harness);
  const created = await harness.newOrganization();
  const owner = created.owner;
  organizationId = created.organization.id;
  organizationSlug = created.organization.slug;
  domain = created.domain;
  ({ connection } = await sso.createConnection({
    actorUserId: owner.id,
    organizationId,
    type: ssoV1.ConnectionType.CONNECTION_TYPE_SAML,
    saml: {
      idpMetadataXml: '',
      idpEntityId: IDP_ENTITY_ID,
      idpSsoUrl: 'https://idp.acme.test/sso',
      idpCertificates: [idp.keys.certificate],
      spCertificate: '',
      spPrivateKey: '',
      dropSpKeyPair: false,
    },
    defaultRole: 'member',
    groupRoles: [{ group: 'acme-admins', role: 'admin' }],
  }) as { connection: ssoV1.Connection });
  sp = { entityId: connection.sp!.entityId, acsUrl: connection.sp!.acsUrl };
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

/** Starts a sign-in from `browser` and answers the AuthnRequest's id. */
async function startFrom(browser: string): Promise<string> {
  const started = await sso.startSignIn({ email: '', organizationSlug, browserBinding: browser });
  expect(started.connectionId).toBe(connection.id);
  return authnRequestOf(started.authorizationUrl).id;
}

function personEmail(): string {
  return `p-${randomBytes(5).toString('hex')}@${domain}`;
}

/** A response that passes every check, for `email`, answering `requestId`. */
function validSpec(email: string, requestId: string, overrides: Partial<ResponseSpec> = {}): ResponseSpec {
  const now = Date.now();
  return {
    issuer: IDP_ENTITY_ID,
    nameId: email,
    inResponseTo: requestId,
    audience: sp.entityId,
    recipient: sp.acsUrl,
    destination: sp.acsUrl,
    notBefore: new Date(now - MINUTE),
    notOnOrAfter: new Date(now + 5 * MINUTE),
    attributes: { email: [email], name: ['Pat Person'] },
    ...overrides,
  };
}

async function post(samlResponse: string, browser: string, target: ssoV1.Connection = connection): Promise<ssoV1.SignedIn> {
  const { signedIn } = await sso.completeSaml({ connectionId: target.id, samlResponse, relayState: '', browserBinding: browser });
  return signedIn!;
}

/** What the person's sign-in would have left: an account, a membership, a ledger row, a linked subject. */
async function tracesOf(email: string): Promise<{ accounts: number; memberships: number; ledgerRows: number; subjects: number }> {
  const count = async (sql: string, values: unknown[]): Promise<number> => Number((await harness.db.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0);
  return {
    accounts: await count('SELECT count(*) AS n FROM identity.users WHERE lower(email) = lower($1)', [email]),
    memberships: await count(
      'SELECT count(*) AS n FROM identity.org_memberships m JOIN identity.users u ON u.id = m.user_id WHERE lower(u.email) = lower($1)',
      [email],
    ),
    ledgerRows: await count(
      `SELECT count(*) AS n FROM identity.credentials c JOIN identity.users u ON u.id = c.user_id WHERE c.kind = 'sso' AND lower(u.email) = lower($1)`,
      [email],
    ),
    subjects: await count('SELECT count(*) AS n FROM oauth.sso_subjects WHERE lower(email) = lower($1) OR subject = $1', [email]),
  };
}

const NOTHING = { accounts: 0, memberships: 0, ledgerRows: 0, subjects: 0 };

/**
 * Posts a forged response and expects it refused with `code` for `reason`
 * (the operator's log line), leaving no trace of `email`.
 */
async function expectRefused(samlResponse: string, browser: string, email: string, reason: RegExp | 'domain_mismatch'): Promise<void> {
  refusals.length = 0;
  const code = reason === 'domain_mismatch' ? 'sso:domain_mismatch' : 'sso:response_invalid';
  expect((await errorOf(post(samlResponse, browser))).code).toBe(code);
  if (reason !== 'domain_mismatch') expect(await waitFor(() => refusals.at(-1), { timeoutMs: 2_000, description: 'the refusal’s log line' })).toMatch(reason);
  expect(await tracesOf(email)).toEqual(NOTHING);
}

/** A fresh request from a fresh browser, and a signed valid response for a fresh person, to forge from. */
async function genuine(options: { signing?: Signing; overrides?: Partial<ResponseSpec> } = {}): Promise<{ browser: string; email: string; requestId: string; xml: string }> {
  const browser = newBrowser();
  const requestId = await startFrom(browser);
  const email = personEmail();
  const signed = await idp.signedResponse(sp, validSpec(email, requestId, options.overrides), { signing: options.signing ?? 'assertion' });
  return { browser, email, requestId, xml: decodeResponse(signed) };
}

describe('a genuine response', () => {
  it.each<Signing>(['assertion', 'response', 'both'])('signed on the %s signs the person in: account, membership, ledger row and subject', async (signing) => {
    const { browser, email, xml } = await genuine({ signing });
    const signedIn = await post(encodeResponse(xml), browser);
    expect(signedIn).toMatchObject({ organizationId, connectionId: connection.id, createdAccount: true, role: 'member' });
    expect(await tracesOf(email)).toEqual({ accounts: 1, memberships: 1, ledgerRows: 1, subjects: 1 });
  });

  it('gives the role of the first mapped group the person is in', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    const email = personEmail();
    const signed = await idp.signedResponse(sp, validSpec(email, requestId, { attributes: { email: [email], groups: ['staff', 'acme-admins'] } }));
    expect((await post(signed, browser)).role).toBe('admin');
  });

  it('is accepted within 60 s of clock skew', async () => {
    const now = Date.now();
    const { browser, xml } = await genuine({ overrides: { notBefore: new Date(now + 30_000), notOnOrAfter: new Date(now + 5 * MINUTE) } });
    await expect(post(encodeResponse(xml), browser)).resolves.toMatchObject({ connectionId: connection.id });
  });
});

describe('forged responses are refused and leave nothing behind', () => {
  it('1. unsigned', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    const email = personEmail();
    await expectRefused(encodeResponse(responseXml(validSpec(email, requestId))), browser, email, /^Invalid signature$/);
  });

  it('2. signed by a key the connection does not trust', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    const email = personEmail();
    const signed = await idp.signedResponse(sp, validSpec(email, requestId), { signingKeys: attackerKeys });
    await expectRefused(signed, browser, email, /^Invalid signature$/);
  });

  it('3. signed response with its assertion changed after signing', async () => {
    const { browser, email, xml } = await genuine({ signing: 'response' });
    const victim = personEmail();
    await expectRefused(encodeResponse(xml.replaceAll(email, victim)), browser, victim, /^Invalid signature$/);
    expect(await tracesOf(email)).toEqual(NOTHING);
  });

  it('4. signed assertion with its NameID changed after signing', async () => {
    const { browser, email, xml } = await genuine();
    const victim = personEmail();
    await expectRefused(encodeResponse(xml.replaceAll(email, victim)), browser, victim, /^Invalid signature$/);
  });

  it('5. wrapping: a second, unsigned assertion before the signed one', async () => {
    const { browser, requestId, xml } = await genuine();
    const victim = personEmail();
    const evil = assertionXml(validSpec(victim, requestId));
    await expectRefused(encodeResponse(xml.replace('<saml:Assertion ', `${evil}<saml:Assertion `)), browser, victim, /multiple assertions/);
  });

  it('6. wrapping: a second, unsigned assertion after the signed one', async () => {
    const { browser, requestId, xml } = await genuine();
    const victim = personEmail();
    const evil = assertionXml(validSpec(victim, requestId));
    await expectRefused(encodeResponse(xml.replace('</samlp:Response>', `${evil}</samlp:Response>`)), browser, victim, /multiple assertions/);
  });

  it('7. wrapping: the signed assertion moved inside an unsigned one', async () => {
    const { browser, requestId, xml } = await genuine();
    const victim = personEmail();
    const signedAssertion = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
    const evil = assertionXml(validSpec(victim, requestId)).replace('</saml:Subject>', `</saml:Subject><saml:Advice>${signedAssertion}</saml:Advice>`);
    await expectRefused(encodeResponse(xml.replace(signedAssertion, evil)), browser, victim, /^Invalid signature$/);
  });

  it('8. wrapping: an unsigned assertion carrying the signed one’s ID, beside it', async () => {
    const { browser, requestId, xml } = await genuine();
    const victim = personEmail();
    const signedId = /<saml:Assertion [^>]*ID="([^"]+)"/.exec(xml)?.[1] ?? '';
    const evil = assertionXml(validSpec(victim, requestId, { assertionId: signedId }));
    await expectRefused(encodeResponse(xml.replace('<samlp:Status>', `${evil}<samlp:Status>`)), browser, victim, /multiple assertions/);
  });

  it('9. wrapping: the signed response moved into the Extensions of an unsigned one', async () => {
    const { browser, requestId, xml } = await genuine({ signing: 'response' });
    const victim = personEmail();
    const outer = responseXml(validSpec(victim, requestId)).replace('<samlp:Status>', `<samlp:Extensions>${xml}</samlp:Extensions><samlp:Status>`);
    await expectRefused(encodeResponse(outer), browser, victim, /^Invalid signature$/);
  });

  it('10. a comment injected into the NameID and email: the whole signed value is read', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    // The IdP vouches for someone at a domain the attacker owns, whose address begins with the victim's.
    const victim = personEmail();
    const attacker = `${victim}.attacker.test`;
    const signed = decodeResponse(await idp.signedResponse(sp, validSpec(attacker, requestId)));
    const injected = signed.replaceAll(`>${attacker}<`, `>${victim}<!---->.attacker.test<`);
    await expectRefused(encodeResponse(injected), browser, victim, 'domain_mismatch');
    expect(await tracesOf(attacker)).toEqual(NOTHING);
  });

  it('11. a comment in the DigestValue of a changed assertion (GHSA-x3m8-899r-f7c3)', async () => {
    const { browser, email, xml } = await genuine();
    const victim = personEmail();
    const forged = xml.replaceAll(email, victim).replace(/<ds:DigestValue>([^<]*)<\/ds:DigestValue>/, '<ds:DigestValue><!--x-->$1</ds:DigestValue>');
    await expectRefused(encodeResponse(forged), browser, victim, /^Invalid signature$/);
  });

  it('12. another audience', async () => {
    const { browser, email, xml } = await genuine({ overrides: { audience: 'https://other-sp.test/metadata' } });
    await expectRefused(encodeResponse(xml), browser, email, /audience mismatch/);
  });

  it('13. another Recipient', async () => {
    const { browser, email, xml } = await genuine({ overrides: { recipient: 'https://other-sp.test/acs' } });
    await expectRefused(encodeResponse(xml), browser, email, /no single current bearer confirmation for this ACS/);
  });

  it('14. another Destination', async () => {
    const { browser, email, xml } = await genuine({ signing: 'both', overrides: { destination: 'https://other-sp.test/acs' } });
    await expectRefused(encodeResponse(xml), browser, email, /Destination is not this ACS/);
  });

  it('15. expired beyond the 60 s of skew', async () => {
    const now = Date.now();
    const { browser, email, xml } = await genuine({ overrides: { notBefore: new Date(now - 10 * MINUTE), notOnOrAfter: new Date(now - 61_000) } });
    await expectRefused(encodeResponse(xml), browser, email, /expired/);
  });

  it('16. not valid yet beyond the 60 s of skew', async () => {
    const now = Date.now();
    const { browser, email, xml } = await genuine({ overrides: { notBefore: new Date(now + 2 * MINUTE), notOnOrAfter: new Date(now + 10 * MINUTE) } });
    await expectRefused(encodeResponse(xml), browser, email, /not yet valid/);
  });

  it('17. replayed: the same response a second time', async () => {
    const { browser, email, xml } = await genuine();
    await post(encodeResponse(xml), browser);
    const before = await tracesOf(email);
    expect((await errorOf(post(encodeResponse(xml), browser))).code).toBe('sso:response_invalid');
    expect(await tracesOf(email)).toEqual(before);
  });

  it('18. replayed assertion under a new request of the same browser', async () => {
    const { browser, email, xml } = await genuine();
    await post(encodeResponse(xml), browser);
    const assertionId = /<saml:Assertion [^>]*ID="([^"]+)"/.exec(xml)?.[1] ?? '';
    const requestId = await startFrom(browser);
    const replay = await idp.signedResponse(sp, validSpec(email, requestId, { assertionId }));
    const before = await tracesOf(email);
    expect((await errorOf(post(replay, browser))).code).toBe('sso:response_invalid');
    expect(await tracesOf(email)).toEqual(before);
  });

  it('19. InResponseTo of a request another browser started', async () => {
    const { email, xml } = await genuine();
    await expectRefused(encodeResponse(xml), newBrowser(), email, /InResponseTo is no unused request of this browser/);
  });

  it('20. InResponseTo of no request', async () => {
    const browser = newBrowser();
    const email = personEmail();
    const signed = await idp.signedResponse(sp, validSpec(email, samlId()));
    await expectRefused(signed, browser, email, /InResponseTo is no unused request of this browser/);
  });

  it('21. InResponseTo of a request already answered', async () => {
    const { browser, requestId, xml } = await genuine();
    await post(encodeResponse(xml), browser);
    const email = personEmail();
    const second = await idp.signedResponse(sp, validSpec(email, requestId));
    await expectRefused(second, browser, email, /InResponseTo is no unused request of this browser/);
  });

  it('22. the Response answering one request, its signed assertion another', async () => {
    const browser = newBrowser();
    const first = await startFrom(browser);
    const second = await startFrom(browser);
    const email = personEmail();
    const signed = decodeResponse(await idp.signedResponse(sp, validSpec(email, first)));
    const mixed = signed.replace(new RegExp(`(<samlp:Response [^>]*InResponseTo=")${first}"`), `$1${second}"`);
    expect(mixed).not.toBe(signed);
    await expectRefused(encodeResponse(mixed), browser, email, /answer different requests/);
  });

  it('23. IdP-initiated (no InResponseTo) while the connection does not allow it', async () => {
    const email = personEmail();
    const signed = await idp.signedResponse(sp, validSpec(email, ''));
    await expectRefused(signed, newBrowser(), email, /IdP-initiated sign-in is off/);
    await expectRefused(signed, '', email, /IdP-initiated sign-in is off/);
  });

  it('24. an email outside the organisation’s verified domains', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    const outsider = `p-${randomBytes(5).toString('hex')}@elsewhere.test`;
    const signed = await idp.signedResponse(sp, validSpec(outsider, requestId));
    await expectRefused(signed, browser, outsider, 'domain_mismatch');
  });

  it('25. a DOCTYPE with an external entity (XXE)', async () => {
    const { browser, email, xml } = await genuine();
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${xml.replace(email, '&x;')}`;
    await expectRefused(encodeResponse(xxe), browser, email, /DOCTYPE or an entity/);
  });

  it('26. entity expansion (billion laughs)', async () => {
    const { browser, email, xml } = await genuine();
    const laughs = `<!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`;
    await expectRefused(encodeResponse(`${laughs}${xml}`), browser, email, /DOCTYPE or an entity/);
  });

  it('27. over the size limit, before anything is parsed', async () => {
    const browser = newBrowser();
    const requestId = await startFrom(browser);
    const email = personEmail();
    const signed = await idp.signedResponse(sp, validSpec(email, requestId, { attributes: { email: [email], padding: ['x'.repeat(300 * 1024)] } }));
    await expectRefused(signed, browser, email, /over the size limit/);
  });

  it('28. issued by another IdP', async () => {
    const { browser, email, xml } = await genuine({ overrides: { issuer: 'https://idp.other.test/metadata' } });
    await expectRefused(encodeResponse(xml), browser, email, /not issued by the connection’s IdP/);
  });

  it('29. without Conditions', async () => {
    const { browser, email, xml } = await genuine({ overrides: { conditions: false } });
    await expectRefused(encodeResponse(xml), browser, email, /AudienceRestriction|no Conditions/);
  });

  it('30. a SubjectConfirmation that is not bearer', async () => {
    const { browser, email, xml } = await genuine({ overrides: { confirmationMethod: 'urn:oasis:names:tc:SAML:2.0:cm:holder-of-key' } });
    await expectRefused(encodeResponse(xml), browser, email, /no single current bearer confirmation/);
  });

  it('31. a failed status from the IdP', async () => {
    const { browser, email, xml } = await genuine({ signing: 'both', overrides: { statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder' } });
    await expectRefused(encodeResponse(xml), browser, email, /status is not Success/);
  });

  it('32. not base64, and not a SAML Response', async () => {
    const { browser, email, xml } = await genuine();
    await expectRefused('%%% not base64 %%%', browser, email, /not base64/);
    const assertionOnly = /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
    await expectRefused(encodeResponse(assertionOnly), browser, email, /no samlp:Response/);
    await expectRefused(encodeResponse('<samlp:Response'), browser, email, /not well-formed/);
  });

  it('33. an empty NameID and no email attribute', async () => {
    const { browser, email, xml } = await genuine({ overrides: { nameId: '', attributes: {} } });
    await expectRefused(encodeResponse(xml), browser, email, /names no subject/);
  });

  it('34. posted to the ACS of a connection it was not made for', async () => {
    const { browser, email, xml } = await genuine();
    const unknown = { ...connection, id: randomUUID() };
    expect((await errorOf(post(encodeResponse(xml), browser, unknown))).code).toBe('sso:connection_not_found');
    expect(await tracesOf(email)).toEqual(NOTHING);
  });
});
