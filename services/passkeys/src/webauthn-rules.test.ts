import { answersChallenge, counterWentBack, knownTransports, userHandleOf, userIdOfHandle } from './webauthn-rules';

const clientData = (challenge: string) => Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'https://a.example' })).toString('base64url');

describe('signature counters', () => {
  it('count a clone only when a counting authenticator does not move forward', () => {
    expect(counterWentBack(0, 0)).toBe(false);
    expect(counterWentBack(0, 1)).toBe(false);
    expect(counterWentBack(5, 6)).toBe(false);
    expect(counterWentBack(5, 5)).toBe(true);
    expect(counterWentBack(5, 1)).toBe(true);
    // An authenticator that stopped counting after it counted is suspect too.
    expect(counterWentBack(5, 0)).toBe(true);
  });
});

describe('the user handle', () => {
  it('is the account id and reads back to it', () => {
    const id = '0b6f4b58-9c56-4d3e-9a8f-3b0f5d1e2c7a';
    const handle = Buffer.from(userHandleOf(id)).toString('base64url');
    expect(userIdOfHandle(handle)).toBe(id);
    expect(userIdOfHandle('not base64url!')).toBeUndefined();
  });
});

describe('answersChallenge', () => {
  it('tells an answer to the kept challenge from one to another', () => {
    expect(answersChallenge({ response: { clientDataJSON: clientData('abc') } }, 'abc')).toBe(true);
    expect(answersChallenge({ response: { clientDataJSON: clientData('xyz') } }, 'abc')).toBe(false);
  });

  it('leaves client data it cannot read to the verification', () => {
    expect(answersChallenge({ response: { clientDataJSON: 'e30' } }, 'abc')).toBe(true);
    expect(answersChallenge({}, 'abc')).toBe(true);
  });
});

it('keeps only the transports WebAuthn defines, once each', () => {
  expect(knownTransports(['internal', 'hybrid', 'internal', 'carrier-pigeon'])).toEqual(['internal', 'hybrid']);
});
