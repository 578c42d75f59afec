import { chooseEmail } from './github';

describe('chooseEmail()', () => {
  it('takes the primary address, lower-cased, with its verified flag', () => {
    expect(
      chooseEmail([
        { email: 'other@example.com', primary: false, verified: true },
        { email: ' Me@Example.COM ', primary: true, verified: true },
      ]),
    ).toEqual({ email: 'me@example.com', verified: true });
  });

  it('does not fall back to another verified address when the primary one is unverified', () => {
    expect(
      chooseEmail([
        { email: 'me@example.com', primary: true, verified: false },
        { email: 'other@example.com', primary: false, verified: true },
      ]),
    ).toEqual({ email: 'me@example.com', verified: false });
  });

  it('finds nothing without a primary address', () => {
    expect(chooseEmail([])).toEqual({ email: undefined, verified: false });
  });
});
