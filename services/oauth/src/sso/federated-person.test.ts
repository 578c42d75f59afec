import { AppError } from '@latchkey/errors';
import { mappedValues, personOfSamlAssertion, roleOf } from './federated-person';

describe('personOfSamlAssertion()', () => {
  const attributes = new Map<string, readonly string[]>([
    ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', ['Pat@Acme.test']],
    ['displayName', ['Pat Person']],
    ['memberOf', ['staff', 'admins']],
  ]);

  it('reads the default attribute names of the big IdPs, lower-casing the email', () => {
    expect(personOfSamlAssertion({ subject: 'opaque-id', attributes }, {})).toEqual({
      subject: 'opaque-id',
      email: 'pat@acme.test',
      emailVerified: true,
      name: 'Pat Person',
      groups: ['staff', 'admins'],
    });
  });

  it('takes a mapped attribute only, when one is mapped', () => {
    expect(personOfSamlAssertion({ subject: 'x@acme.test', attributes }, { email: 'mail', groups: 'roles' })).toMatchObject({ email: 'x@acme.test', groups: [] });
  });

  it('refuses an assertion with no email anywhere', () => {
    let code: unknown;
    try {
      personOfSamlAssertion({ subject: 'opaque-id', attributes: new Map() }, {});
    } catch (error) {
      code = error instanceof AppError ? error.code : error;
    }
    expect(code).toBe('sso:response_invalid');
  });
});

describe('roleOf()', () => {
  it('gives the first mapped group the person is in, else the default role', () => {
    const groupRoles = [
      { group: 'admins', role: 'admin' },
      { group: 'staff', role: 'member' },
    ];
    expect(roleOf(['staff', 'admins'], groupRoles, 'viewer')).toEqual({ role: 'admin', fromGroups: true });
    expect(roleOf(['others'], groupRoles, 'viewer')).toEqual({ role: 'viewer', fromGroups: false });
  });
});

describe('mappedValues()', () => {
  it('skips default names without values', () => {
    expect(mappedValues(new Map([['a', []], ['b', ['1']]]), undefined, ['a', 'b'])).toEqual(['1']);
  });
});
