import { allowedOrigins, isForeignOrigin } from './origin-policy';

describe('isForeignOrigin()', () => {
  const allowed = allowedOrigins('https://app.example.com/some/path', ['https://admin.example.com:8443']);

  it('lets safe methods and requests without Origin through', () => {
    expect(isForeignOrigin('GET', 'https://evil.example', allowed)).toBe(false);
    expect(isForeignOrigin('POST', undefined, allowed)).toBe(false);
  });

  it('accepts the app’s origin and configured ones, not look-alikes', () => {
    expect(isForeignOrigin('POST', 'https://app.example.com', allowed)).toBe(false);
    expect(isForeignOrigin('DELETE', 'https://admin.example.com:8443', allowed)).toBe(false);
    expect(isForeignOrigin('POST', 'http://app.example.com', allowed)).toBe(true);
    expect(isForeignOrigin('POST', 'https://app.example.com.evil.example', allowed)).toBe(true);
    expect(isForeignOrigin('PATCH', 'null', allowed)).toBe(true);
  });

  it('refuses a configured origin that is not a URL at start', () => {
    expect(() => allowedOrigins('https://app.example.com', ['not a url'])).toThrow(/ALLOWED_ORIGINS/);
  });
});
