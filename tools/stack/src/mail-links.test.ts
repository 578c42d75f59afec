import { extractTokenLinks, mailFileStem } from './mail-links';

describe('extractTokenLinks', () => {
  it('finds the verification link of a mail', () => {
    const text = [
      'Welcome to Latchkey.',
      '',
      'Confirm your address by opening this link within 60 minutes:',
      'http://localhost:8080/verify-email?token=q2Xk_9-Abc',
      '',
      'If you did not sign up, ignore this mail.',
    ].join('\n');
    expect(extractTokenLinks(text)).toEqual(['http://localhost:8080/verify-email?token=q2Xk_9-Abc']);
  });

  it('keeps every token link in order, once each', () => {
    const text =
      'Reset: https://app.example/reset-password?token=AAA\n' +
      'Change: https://app.example/confirm-email-change?token=BBB&x=1\n' +
      'Again: https://app.example/reset-password?token=AAA';
    expect(extractTokenLinks(text)).toEqual([
      'https://app.example/reset-password?token=AAA',
      'https://app.example/confirm-email-change?token=BBB&x=1',
    ]);
  });

  it('leaves out sentence punctuation and brackets around a link', () => {
    expect(extractTokenLinks('Open (http://127.0.0.1:3000/verify-email?token=abc).')).toEqual([
      'http://127.0.0.1:3000/verify-email?token=abc',
    ]);
    expect(extractTokenLinks('Link: <http://localhost:8080/verify-email?token=abc>, thanks')).toEqual([
      'http://localhost:8080/verify-email?token=abc',
    ]);
  });

  it('ignores links without a token parameter', () => {
    expect(extractTokenLinks('See https://example.com/help?tokens=1 and http://localhost:8080/')).toEqual([]);
  });

  it('finds nothing in a mail without links', () => {
    expect(extractTokenLinks('Your password was changed.')).toEqual([]);
  });
});

describe('mailFileStem', () => {
  it('starts with the ISO time, colons as dashes, then the recipient', () => {
    expect(mailFileStem(new Date('2025-01-31T09:15:02.123Z'), 'Ada@Example.com')).toBe(
      '2025-01-31T09-15-02.123Z-ada@example.com',
    );
  });

  it('keeps the recipient to characters that are safe in a file name', () => {
    expect(mailFileStem(new Date('2025-01-31T09:15:02.123Z'), '../x y@example.com')).toBe(
      '2025-01-31T09-15-02.123Z-.._x_y@example.com',
    );
    expect(mailFileStem(new Date('2025-01-31T09:15:02.123Z'), '')).toBe('2025-01-31T09-15-02.123Z-unknown');
  });
});
