import { randomBytes, randomUUID } from 'node:crypto';
import { ssoV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import { followAuthorization, startOidcProvider, type OidcClaims, type ProviderFixture } from '../provider-fixtures';
import { SamlIdentityProvider, authnRequestOf, newKeyPair, type ResponseSpec, type ServiceProviderView } from '../saml-identity-provider';
import { SSO_PUBLIC_URL, newBrowser, startSsoHarness, type SsoHarness } from '../sso-harness';

/**
 * sso.v1's connections (docs/sso.md, "Connecting a SAML IdP"): who may manage them,
 * metadata in and out, sealed secrets, encrypted assertions, IdP-initiated
 * sign-in when allowed, and OpenID Connect per organisation against a real
 * provider (oauth2-mock-server).
 */
const { CONNECTION_TYPE_SAML, CONNECTION_TYPE_OIDC } = ssoV1.ConnectionType;
const MINUTE = 60_000;

let harness: SsoHarness;
let oidc: ProviderFixture<{ idToken: OidcClaims; userinfo?: OidcClaims }>;
const idp = new SamlIdentityProvider('https://idp.connections.test/metadata');

beforeAll(async () => {
  [harness, oidc] = await Promise.all([startSsoHarness({ oauthEnvironment: { SSO_ALLOW_PRIVATE_ISSUERS: 'true' } }), startOidcProvider()]);
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await oidc?.stop();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error.code;
}

function samlInput(overrides: Partial<ssoV1.SamlInput> = {}): ssoV1.SamlInput {
  return {
    idpMetadataXml: '',
    idpEntityId: idp.entityId,
    idpSsoUrl: 'https://idp.connections.test/sso',
    idpCertificates: [idp.keys.certificate],
    spCertificate: '',
    spPrivateKey: '',
    dropSpKeyPair: false,
    ...overrides,
  };
}

function idpMetadata(certificates: readonly string[], extra = ''): string {
  const keys = certificates
    .map((pem) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''))
    .map(
      (der) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  return `${extra}<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${idp.entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keys}<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.connections.test/post"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.connections.test/redirect"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
}

function validSpec(view: ServiceProviderView, email: string, requestId: string): ResponseSpec {
  const now = Date.now();
  return {
    issuer: idp.entityId,
    nameId: email,
    inResponseTo: requestId,
    audience: view.entityId,
    recipient: view.acsUrl,
    destination: view.acsUrl,
    notBefore: new Date(now - MINUTE),
    notOnOrAfter: new Date(now + 5 * MINUTE),
    attributes: { email: [email] },
  };
}

describe('managing connections', () => {
  it('needs sso:manage, keeps each organisation’s connections to itself, and answers the SP values to paste into the IdP', async () => {
    const { owner, organization } = await harness.newOrganization();
    const other = await harness.newOrganization();
    const stranger = await harness.newAccount();
    const scope = { actorUserId: owner.id, organizationId: organization.id };
    const { connection } = await harness.sso.createConnection({ ...scope, type: CONNECTION_TYPE_SAML, saml: samlInput(), defaultRole: '', groupRoles: [] });
    expect(connection).toMatchObject({
      organizationId: organization.id,
      type: CONNECTION_TYPE_SAML,
      defaultRole: 'member',
      sp: {
        entityId: `${SSO_PUBLIC_URL}/v0/sso/saml/${connection!.id}/metadata`,
        acsUrl: `${SSO_PUBLIC_URL}/v0/sso/saml/${connection!.id}/acs`,
        metadataUrl: `${SSO_PUBLIC_URL}/v0/sso/saml/${connection!.id}/metadata`,
      },
      saml: { idpEntityId: idp.entityId, allowIdpInitiated: false, encryptedAssertions: false },
    });

    expect(await codeOf(harness.sso.listConnections({ actorUserId: stranger.id, organizationId: organization.id }))).toBe('org:not_found');
    await harness.db.query(`INSERT INTO identity.org_memberships (organization_id, user_id, role, source) VALUES ($1, $2, 'member', 'admin')`, [
      organization.id,
      stranger.id,
    ]);
    expect(await codeOf(harness.sso.listConnections({ actorUserId: stranger.id, organizationId: organization.id }))).toBe('org:forbidden');
    // Another organisation's owner names this connection under their own organisation: as unknown.
    const foreign = { actorUserId: other.owner.id, organizationId: other.organization.id, connectionId: connection!.id };
    expect(await codeOf(harness.sso.getConnection(foreign))).toBe('sso:connection_not_found');
    expect(await codeOf(harness.sso.deleteConnection(foreign))).toBe('sso:connection_not_found');

    const { connections } = await harness.sso.listConnections(scope);
    expect(connections.map((item) => item.id)).toEqual([connection!.id]);
    const { connection: changed } = await harness.sso.updateConnection({
      ...scope,
      connectionId: connection!.id,
      saml: samlInput({ idpEntityId: '', idpSsoUrl: '', idpCertificates: [], allowIdpInitiated: true }),
      defaultRole: 'admin',
      replaceGroupRoles: true,
      groupRoles: [{ group: 'engineering', role: 'member' }],
    });
    expect(changed).toMatchObject({ defaultRole: 'admin', groupRoles: [{ group: 'engineering', role: 'member' }], saml: { idpEntityId: idp.entityId, allowIdpInitiated: true } });

    const { metadataXml } = await harness.sso.getServiceProviderMetadata({ connectionId: connection!.id });
    expect(metadataXml).toContain(`entityID="${connection!.sp!.entityId}"`);
    expect(metadataXml).toContain(`Location="${connection!.sp!.acsUrl}"`);
    expect(metadataXml).not.toContain('KeyDescriptor');

    await harness.sso.deleteConnection({ ...scope, connectionId: connection!.id });
    expect(await codeOf(harness.sso.getConnection({ ...scope, connectionId: connection!.id }))).toBe('sso:connection_not_found');
    expect(await codeOf(harness.sso.getServiceProviderMetadata({ connectionId: connection!.id }))).toBe('sso:connection_not_found');
  });

  it('reads the IdP from its metadata XML, up to two certificates for a rollover, and refuses metadata that is unsafe or unusable', async () => {
    const { owner, organization } = await harness.newOrganization();
    const scope = { actorUserId: owner.id, organizationId: organization.id, type: CONNECTION_TYPE_SAML, defaultRole: 'member', groupRoles: [] };
    const next = newKeyPair('next-idp-key');
    const { connection } = await harness.sso.createConnection({
      ...scope,
      saml: samlInput({ idpEntityId: '', idpSsoUrl: '', idpCertificates: [], idpMetadataXml: idpMetadata([idp.keys.certificate, next.certificate]) }),
    });
    expect(connection!.saml).toMatchObject({ idpEntityId: idp.entityId, idpSsoUrl: 'https://idp.connections.test/redirect' });
    expect(connection!.saml!.idpCertificates).toHaveLength(2);

    const refused = async (xml: string): Promise<string> =>
      codeOf(harness.sso.createConnection({ ...scope, saml: samlInput({ idpEntityId: '', idpSsoUrl: '', idpCertificates: [], idpMetadataXml: xml }) }));
    expect(await refused(idpMetadata([idp.keys.certificate], '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'))).toBe('validation:invalid_input');
    expect(await refused(idpMetadata([]))).toBe('validation:invalid_input');
    expect(await refused(idpMetadata([idp.keys.certificate, next.certificate, newKeyPair('third').certificate]))).toBe('validation:invalid_input');
    expect(await refused('<md:EntityDescriptor')).toBe('validation:invalid_input');
    expect(await codeOf(harness.sso.createConnection({ ...scope, saml: samlInput({ idpCertificates: ['not a certificate'] }) }))).toBe('validation:invalid_input');
    expect(await codeOf(harness.sso.createConnection({ ...scope, saml: samlInput({ idpSsoUrl: 'javascript:alert(1)' }) }))).toBe('validation:invalid_input');
  });

  it('seals an OpenID client secret and an SP key at rest', async () => {
    const { owner, organization } = await harness.newOrganization();
    const secret = `secret-${randomBytes(12).toString('hex')}`;
    const spKeys = newKeyPair('sp-encryption');
    const scope = { actorUserId: owner.id, organizationId: organization.id, defaultRole: 'member', groupRoles: [] };
    await harness.sso.createConnection({ ...scope, type: CONNECTION_TYPE_OIDC, oidc: { issuer: oidc.url, clientId: 'acme', clientSecret: secret } });
    await harness.sso.createConnection({
      ...scope,
      type: CONNECTION_TYPE_SAML,
      saml: samlInput({ spCertificate: spKeys.certificate, spPrivateKey: spKeys.privateKey }),
    });
    const { rows } = await harness.db.query<Record<string, unknown>>('SELECT * FROM oauth.sso_connections WHERE organization_id = $1', [organization.id]);
    const stored = JSON.stringify(rows.map((row) => Object.values(row).map((value) => (Buffer.isBuffer(value) ? value.toString('latin1') : value))));
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(spKeys.privateKey.split('\n')[1]);
    const mismatched = newKeyPair('other');
    expect(
      await codeOf(
        harness.sso.createConnection({ ...scope, type: CONNECTION_TYPE_SAML, saml: samlInput({ spCertificate: spKeys.certificate, spPrivateKey: mismatched.privateKey }) }),
      ),
    ).toBe('validation:invalid_input');
  });
});

describe('signing in through a connection', () => {
  it('accepts assertions encrypted to the SP’s key, and refuses assertions in clear once a key is set', async () => {
    const { owner, organization, domain } = await harness.newOrganization();
    const spKeys = newKeyPair('sp-encryption');
    const { connection } = await harness.sso.createConnection({
      actorUserId: owner.id,
      organizationId: organization.id,
      type: CONNECTION_TYPE_SAML,
      saml: samlInput({ spCertificate: spKeys.certificate, spPrivateKey: spKeys.privateKey }),
      defaultRole: 'member',
      groupRoles: [],
    });
    const view = { entityId: connection!.sp!.entityId, acsUrl: connection!.sp!.acsUrl, encryptionCertificate: spKeys.certificate };
    const { metadataXml } = await harness.sso.getServiceProviderMetadata({ connectionId: connection!.id });
    expect(metadataXml).toContain('<md:KeyDescriptor use="encryption">');

    const signIn = async (encrypt: boolean): Promise<ssoV1.CompleteSamlResponse> => {
      const browser = newBrowser();
      const started = await harness.sso.startSignIn({ email: '', organizationSlug: organization.slug, browserBinding: browser });
      const email = `p-${randomBytes(4).toString('hex')}@${domain}`;
      const samlResponse = await idp.signedResponse(view, validSpec(view, email, authnRequestOf(started.authorizationUrl).id), { encrypt });
      return harness.sso.completeSaml({ connectionId: connection!.id, samlResponse, relayState: '', browserBinding: browser });
    };
    await expect(signIn(true)).resolves.toMatchObject({ signedIn: { organizationId: organization.id, createdAccount: true } });
    expect(await codeOf(signIn(false))).toBe('sso:response_invalid');
  });

  it('accepts an IdP-initiated response when the connection allows it, once', async () => {
    const { owner, organization, domain } = await harness.newOrganization();
    const { connection } = await harness.sso.createConnection({
      actorUserId: owner.id,
      organizationId: organization.id,
      type: CONNECTION_TYPE_SAML,
      saml: samlInput({ allowIdpInitiated: true }),
      defaultRole: 'member',
      groupRoles: [],
    });
    const view = { entityId: connection!.sp!.entityId, acsUrl: connection!.sp!.acsUrl };
    const email = `p-${randomBytes(4).toString('hex')}@${domain}`;
    const samlResponse = await idp.signedResponse(view, validSpec(view, email, ''));
    const post = () => harness.sso.completeSaml({ connectionId: connection!.id, samlResponse, relayState: '', browserBinding: '' });
    await expect(post()).resolves.toMatchObject({ signedIn: { createdAccount: true } });
    expect(await codeOf(post())).toBe('sso:response_invalid');
  });

  it('finds the connection by the email’s verified domain, and answers sso:connection_not_found for other domains', async () => {
    const { owner, organization, domain } = await harness.newOrganization();
    const start = (email: string) => harness.sso.startSignIn({ email, organizationSlug: '', browserBinding: newBrowser() });
    expect(await codeOf(start(`someone@${domain}`))).toBe('sso:connection_not_found');
    const { connection } = await harness.sso.createConnection({
      actorUserId: owner.id,
      organizationId: organization.id,
      type: CONNECTION_TYPE_SAML,
      saml: samlInput(),
      defaultRole: 'member',
      groupRoles: [],
    });
    const started = await start(`someone@${domain.toUpperCase()}`);
    expect(started.connectionId).toBe(connection!.id);
    expect(new URL(started.authorizationUrl).origin).toBe('https://idp.connections.test');
    expect(await codeOf(start(`someone@unknown-${randomUUID()}.test`))).toBe('sso:connection_not_found');
    expect(await codeOf(harness.sso.startSignIn({ email: `a@${domain}`, organizationSlug: organization.slug, browserBinding: newBrowser() }))).toBe(
      'validation:invalid_input',
    );
  });

  it('signs in through OpenID Connect with PKCE and a nonce, bound to the browser', async () => {
    const { owner, organization, domain } = await harness.newOrganization();
    const { connection } = await harness.sso.createConnection({
      actorUserId: owner.id,
      organizationId: organization.id,
      type: CONNECTION_TYPE_OIDC,
      oidc: { issuer: oidc.url, clientId: 'acme-client', clientSecret: 'acme-secret' },
      defaultRole: 'member',
      groupRoles: [{ group: 'admins', role: 'admin' }],
    });
    expect(connection!.redirectUri).toBe(`${SSO_PUBLIC_URL}/v0/sso/oidc/${connection!.id}/callback`);
    const email = `p-${randomBytes(4).toString('hex')}@${domain}`;
    const signIn = async (completingBrowser?: string) => {
      const browser = newBrowser();
      await oidc.nextLogin({ idToken: { sub: `sub-${email}`, email, email_verified: true, name: 'Pat' }, userinfo: { sub: `sub-${email}`, email } });
      const started = await harness.sso.startSignIn({ email: '', organizationSlug: organization.slug, browserBinding: browser });
      const url = new URL(started.authorizationUrl);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('nonce')).toBeTruthy();
      const { code, state } = await followAuthorization(started.authorizationUrl);
      return harness.sso.completeOidc({ connectionId: connection!.id, code, state, browserBinding: completingBrowser ?? browser });
    };
    expect(await codeOf(signIn(newBrowser()))).toBe('sso:response_invalid');
    await expect(signIn()).resolves.toMatchObject({ signedIn: { organizationId: organization.id, createdAccount: true, role: 'member' } });
  });
});

describe('an OpenID issuer on a private address', () => {
  it('is refused unless SSO_ALLOW_PRIVATE_ISSUERS', async () => {
    const strict = await startSsoHarness();
    try {
      const { owner, organization } = await strict.newOrganization();
      await strict.sso.createConnection({
        actorUserId: owner.id,
        organizationId: organization.id,
        type: CONNECTION_TYPE_OIDC,
        oidc: { issuer: oidc.url, clientId: 'acme-client', clientSecret: 'acme-secret' },
        defaultRole: 'member',
        groupRoles: [],
      });
      expect(await codeOf(strict.sso.startSignIn({ email: '', organizationSlug: organization.slug, browserBinding: newBrowser() }))).toBe(
        'oauth:provider_unavailable',
      );
    } finally {
      await strict.close();
    }
  }, 60_000);
});
