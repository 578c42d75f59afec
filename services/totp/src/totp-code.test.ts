import { createHmac, randomBytes } from 'node:crypto';
import { encodeSecret, generateTotp, matchTimeStep, otpauthUri, timeStepAt } from './totp-code';

/** RFC 6238 Appendix B uses this ASCII seed for its SHA-1 vectors. */
const rfcSecret = Buffer.from('12345678901234567890', 'ascii');

/** RFC 6238 Appendix B, SHA-1 column: Unix time in seconds → 8-digit TOTP. */
const rfc6238Vectors: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
];

const seconds = (s: number): number => s * 1000;

/** An independent RFC 4226 §5.3 reference, to check otplib as we configure it. */
function referenceTotp(secret: Uint8Array, unixSeconds: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describe('generateTotp()', () => {
  it.each(rfc6238Vectors)('matches RFC 6238 Appendix B at %i s (8 digits)', (time, code) => {
    expect(generateTotp(rfcSecret, seconds(time), 8)).toBe(code);
  });

  it.each(rfc6238Vectors)('gives the last 6 digits of the vector at %i s with 6 digits', (time, code) => {
    expect(generateTotp(rfcSecret, seconds(time))).toBe(code.slice(-6));
  });

  it('agrees with an independent RFC 4226 computation for random secrets and times', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = randomBytes(20);
      const epoch = Math.floor(Math.random() * 4_000_000_000);
      expect(generateTotp(secret, seconds(epoch))).toBe(referenceTotp(secret, epoch));
    }
  });
});

describe('encodeSecret()', () => {
  it('encodes RFC 4648 §10 vectors without padding', () => {
    expect(encodeSecret(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(encodeSecret(Buffer.from('f'))).toBe('MY');
    expect(encodeSecret(rfcSecret)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });
});

describe('otpauthUri()', () => {
  it('is a standard Key Uri with the issuer in label and parameters', () => {
    const uri = new URL(otpauthUri('Latchkey Test', 'ada@example.com', rfcSecret));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Latchkey Test:ada@example.com');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
      issuer: 'Latchkey Test',
    });
    expect(uri.searchParams.get('algorithm') ?? 'SHA1').toMatch(/^sha1$/i);
    expect(uri.searchParams.get('digits') ?? '6').toBe('6');
    expect(uri.searchParams.get('period') ?? '30').toBe('30');
  });
});

describe('timeStepAt()', () => {
  it('counts 30-second steps from the Unix epoch', () => {
    expect(timeStepAt(seconds(59))).toBe(1);
    expect(timeStepAt(seconds(1111111109))).toBe(0x23523ec);
    expect(timeStepAt(seconds(2000000000))).toBe(0x3f940aa);
  });
});

describe('matchTimeStep()', () => {
  const now = seconds(1111111111);
  const step = timeStepAt(now);
  const codeAt = (offsetSteps: number): string => generateTotp(rfcSecret, now + seconds(30 * offsetSteps));

  it('accepts the current code and answers its step', () => {
    expect(matchTimeStep(rfcSecret, codeAt(0), { nowMs: now })).toBe(step);
  });

  it('accepts one step of drift either side', () => {
    expect(matchTimeStep(rfcSecret, codeAt(-1), { nowMs: now })).toBe(step - 1);
    expect(matchTimeStep(rfcSecret, codeAt(1), { nowMs: now })).toBe(step + 1);
  });

  it('refuses two steps of drift either side', () => {
    expect(matchTimeStep(rfcSecret, codeAt(-2), { nowMs: now })).toBeUndefined();
    expect(matchTimeStep(rfcSecret, codeAt(2), { nowMs: now })).toBeUndefined();
  });

  it('refuses a step that was already accepted, and any earlier one', () => {
    expect(matchTimeStep(rfcSecret, codeAt(0), { nowMs: now, lastUsedStep: step })).toBeUndefined();
    expect(matchTimeStep(rfcSecret, codeAt(-1), { nowMs: now, lastUsedStep: step })).toBeUndefined();
    expect(matchTimeStep(rfcSecret, codeAt(1), { nowMs: now, lastUsedStep: step })).toBe(step + 1);
  });

  it('accepts the same code again only for a later step, never within the window of its use', () => {
    const used = matchTimeStep(rfcSecret, codeAt(0), { nowMs: now });
    // Thirty seconds later the same code is one step in the past: still in the window, but used.
    expect(matchTimeStep(rfcSecret, codeAt(0), { nowMs: now + seconds(30), lastUsedStep: used })).toBeUndefined();
  });

  it('refuses codes that are not exactly six digits', () => {
    const code = codeAt(0);
    for (const given of [` ${code}`, `${code}0`, code.slice(1), 'abcdef', '']) {
      expect(matchTimeStep(rfcSecret, given, { nowMs: now })).toBeUndefined();
    }
  });

  it('refuses a code of another secret', () => {
    const other = Buffer.alloc(20, 7);
    expect(matchTimeStep(other, codeAt(0), { nowMs: now })).toBeUndefined();
  });
});
