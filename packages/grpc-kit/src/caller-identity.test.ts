import type { PeerCertificate } from 'node:tls';
import { allowedCallersOf, callerNamesOf, subjectAltNamesOf, unknownMethodsOf } from './caller-identity';

describe('subjectAltNamesOf', () => {
  it('reads the DNS and URI names of a subjectAltName as Node prints it, and nothing else', () => {
    expect(subjectAltNamesOf('DNS:localhost, IP Address:127.0.0.1, URI:spiffe://example.org/ns/billing/sa/billing, DNS:billing.example.org')).toEqual([
      'localhost',
      'spiffe://example.org/ns/billing/sa/billing',
      'billing.example.org',
    ]);
    expect(subjectAltNamesOf(undefined)).toEqual([]);
    expect(subjectAltNamesOf('email:ops@example.org')).toEqual([]);
  });

  it('unquotes a name Node quoted for holding a comma, which cannot pass for two names', () => {
    expect(subjectAltNamesOf('URI:"urn:example:a,DNS:b", DNS:c')).toEqual(['urn:example:a,DNS:b', 'c']);
  });
});

describe('callerNamesOf', () => {
  const certificate = { subject: { CN: 'posts' }, subjectaltname: 'DNS:latchkey-posts, URI:urn:latchkey:admin-cli' } as unknown as PeerCertificate;

  it('names a unit by its Subject CN and a platform client by its SANs only', () => {
    expect(callerNamesOf(certificate, 'common-name')).toEqual(['posts']);
    expect(callerNamesOf(certificate, 'subject-alt-name')).toEqual(['latchkey-posts', 'urn:latchkey:admin-cli']);
    expect(callerNamesOf(undefined, 'subject-alt-name')).toEqual([]);
  });
});

describe('allowedCallersOf', () => {
  it('answers one list for every RPC, or `*` and the RPC’s own list', () => {
    expect(allowedCallersOf(['gateway', 'jobs'], 'GetUser')).toEqual(['gateway', 'jobs']);
    const perRpc = { '*': ['urn:latchkey:admin-cli'], FindUser: ['spiffe://example.org/desk'] };
    expect(allowedCallersOf(perRpc, 'FindUser')).toEqual(['urn:latchkey:admin-cli', 'spiffe://example.org/desk']);
    expect(allowedCallersOf(perRpc, 'DeleteUser')).toEqual(['urn:latchkey:admin-cli']);
    expect(allowedCallersOf({ FindUser: ['x'] }, 'DeleteUser')).toEqual([]);
  });
});

describe('unknownMethodsOf', () => {
  const definition = { getUser: { path: '/identity.v1.IdentityService/GetUser' }, deleteUser: { path: '/identity.v1.IdentityService/DeleteUser' } };

  it('answers the RPCs a per-method list names that the service lacks, by their proto names', () => {
    expect(unknownMethodsOf({ GetUser: ['jobs'], '*': ['admin'], getUser: ['gateway'], SaveArtifact: ['gateway'] }, definition)).toEqual([
      'getUser',
      'SaveArtifact',
    ]);
    expect(unknownMethodsOf({ GetUser: ['jobs'], DeleteUser: ['gateway'] }, definition)).toEqual([]);
  });

  it('has nothing to say of one list for every method, or of none', () => {
    expect(unknownMethodsOf(['gateway'], definition)).toEqual([]);
    expect(unknownMethodsOf(undefined, definition)).toEqual([]);
  });
});
