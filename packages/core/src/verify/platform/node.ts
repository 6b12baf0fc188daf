import { Buffer, isAscii } from 'node:buffer';
import { createHmac, KeyObject, randomBytes } from 'node:crypto';
import { HmacKey } from './node-hmac-key.js';
import type { Platform, RawBody } from './types.js';

// Fatal: invalid UTF-8 is not JSON (RFC 8259 §8.1); a lenient decode would hand handlers U+FFFD in
// place of the bytes that were signed. ignoreBOM keeps a BOM in the text, so JSON.parse refuses it too.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** node:crypto's synchronous HMAC and Buffer's byte helpers: the fast path on Node, Bun and Deno. */
export const platform: Platform = {
  syncHmac: true,
  HmacKey,
  decodeUtf8(bytes) {
    // ASCII (most webhook bodies) is valid UTF-8 that reads the same as Latin-1, and a Latin-1 string
    // is a plain copy; the strict decoder is left for bodies that need it.
    return isAscii(bytes) ? asBuffer(bytes).toString('latin1') : UTF8.decode(bytes);
  },
  utf8ByteLength: (text) => Buffer.byteLength(text, 'utf8'),
  randomHex: (bytes) => randomBytes(bytes).toString('hex'),
  keyObjectDigest(secret: unknown, timestampText: string, rawBody: RawBody) {
    if (!(secret instanceof KeyObject)) return undefined;
    return createHmac('sha256', secret).update(`${timestampText}.`).update(rawBody).digest('hex');
  },
};
