import { claimableDomain, emailDomainOf, normalizeDomain } from './sso-domain-names';
import { handleBaseOf } from './sso-members';

describe('normalizeDomain()', () => {
  it('lower-cases, turns IDNA into punycode and drops the trailing dot', () => {
    expect(normalizeDomain(' Example.COM. ')).toBe('example.com');
    expect(normalizeDomain('Bücher.de')).toBe('xn--bcher-kva.de');
    expect(normalizeDomain('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
  });

  it('answers nothing for what is no host name', () => {
    for (const bad of ['', '.', 'localhost', 'jo@example.com', 'example.com/path', 'exa mple.com', `${'a'.repeat(250)}.com`]) {
      expect({ bad, domain: normalizeDomain(bad) }).toEqual({ bad, domain: undefined });
    }
  });
});

describe('emailDomainOf()', () => {
  it('is the normalised part after the last @', () => {
    expect(emailDomainOf('Jo.Doe@Acme.COM')).toBe('acme.com');
    expect(emailDomainOf('"a@b"@bücher.de')).toBe('xn--bcher-kva.de');
    expect(emailDomainOf('no-at-sign')).toBeUndefined();
    expect(emailDomainOf('@acme.com')).toBeUndefined();
  });
});

describe('claimableDomain()', () => {
  it('takes a registrable domain and names under it', () => {
    for (const good of ['acme.com', 'eu.acme.com', 'acme.co.uk', 'someone.github.io']) {
      expect({ good, problems: claimableDomain(good).problems }).toEqual({ good, problems: [] });
    }
  });

  it('refuses public suffixes, addresses and free-mail domains, naming the field', () => {
    for (const bad of ['com', 'co.uk', 'github.io', '10.0.0.1', 'gmail.com', 'googlemail.com', 'outlook.com', 'mail.yahoo.com']) {
      const { problems } = claimableDomain(bad);
      expect({ bad, fields: problems.map((problem) => problem.field) }).toEqual({ bad, fields: ['domain'] });
    }
  });
});

describe('handleBaseOf()', () => {
  it('makes a handle of the local part: a-z, 0-9 and _, at least 3 and room for a number', () => {
    expect(handleBaseOf('Jo.Doe@acme.com')).toBe('jo_doe');
    expect(handleBaseOf('josé.müller+sso@acme.com')).toBe('jose_muller_sso');
    expect(handleBaseOf('jo@acme.com')).toBe('jo_user');
    expect(handleBaseOf('...@acme.com')).toBe('user');
    expect(handleBaseOf(`${'x'.repeat(60)}@acme.com`)).toHaveLength(25);
    for (const email of ['Jo.Doe@acme.com', 'jo@acme.com', '...@acme.com', `${'x'.repeat(60)}@acme.com`]) {
      expect(handleBaseOf(email)).toMatch(/^[a-z0-9_]{3,25}$/);
    }
  });
});
