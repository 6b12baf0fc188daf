import { Buffer } from 'node:buffer';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Platform, SignFunction } from './types.js';

// Fatal: invalid UTF-8 is not JSON (RFC 8259 §8.1); a lenient decode would hand handlers U+FFFD in
// place of the bytes that were signed. ignoreBOM keeps a BOM in the text, so JSON.parse refuses it too.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The Node build's one HMAC. */
const signSync: SignFunction = (secret, timestampText, rawBody) =>
  createHmac('sha256', secret).update(`${timestampText}.`).update(rawBody).digest('hex');

/** node:crypto's synchronous HMAC and Buffer's helpers, on Node, Bun and Deno. */
export const platform: Platform = {
  signSync,
  sign: async (secret, timestampText, rawBody) => signSync(secret, timestampText, rawBody),
  sameDigest(a, b) {
    const left = Buffer.from(a, 'latin1');
    const right = Buffer.from(b, 'latin1');
    return left.length === right.length && timingSafeEqual(left, right);
  },
  decodeUtf8: (bytes) => UTF8.decode(bytes),
  utf8ByteLength: (text) => Buffer.byteLength(text, 'utf8'),
  randomHex: (bytes) => randomBytes(bytes).toString('hex'),
};
