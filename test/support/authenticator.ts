import { createHmac } from 'node:crypto';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** RFC 4648 base32, decoded by the test itself so that the service is not checked against itself. */
function decodeBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >>> bits) & 0xff);
      buffer &= (1 << bits) - 1;
    }
  }
  return Buffer.from(bytes);
}

/**
 * An authenticator app of the test's own: RFC 6238 (HMAC-SHA-1, 6 digits,
 * 30 s) computed from the base32 secret, any time step.
 */
export function totpCode(base32Secret: string, offsetSteps = 0, nowMs = Date.now()): string {
  const step = Math.floor(nowMs / 30_000) + offsetSteps;
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', decodeBase32(base32Secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** What a phone camera would read from the QR code data URI. */
export function readQrCode(dataUri: string): string {
  const match = /^data:image\/png;base64,(.+)$/.exec(dataUri);
  if (!match?.[1]) throw new Error('not a PNG data URI');
  const png = PNG.sync.read(Buffer.from(match[1], 'base64'));
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!decoded) throw new Error('no QR code in the image');
  return decoded.data;
}
