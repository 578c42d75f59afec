import { messageIdForJob } from './send-email';

describe('messageIdForJob()', () => {
  it('uses a UUID job id as it is', () => {
    expect(messageIdForJob('0190a8e2-6c1f-7c2e-9a55-3f1c2d4e5f60')).toBe('<0190a8e2-6c1f-7c2e-9a55-3f1c2d4e5f60@latchkey>');
  });

  it('hashes an id that is not a plain atom, the same way every time', () => {
    const id = messageIdForJob('a b>@c');
    expect(id).toMatch(/^<[0-9a-f]{64}@latchkey>$/);
    expect(messageIdForJob('a b>@c')).toBe(id);
  });
});
