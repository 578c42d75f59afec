import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './request-id';

const withHeader = (value?: string | string[]) => ({ headers: { 'x-request-id': value } }) as unknown as IncomingMessage;

describe('requestIdOf()', () => {
  it('echoes a sane client id', () => {
    expect(requestIdOf(withHeader('abc-123_DEF.4:5'))).toBe('abc-123_DEF.4:5');
  });

  it('replaces a missing, long or odd one with a UUID', () => {
    for (const value of [undefined, '', 'x'.repeat(129), 'has space', 'line\nbreak']) {
      expect(requestIdOf(withHeader(value))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
