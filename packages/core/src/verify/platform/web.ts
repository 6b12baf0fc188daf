import type { Platform, RawBody, SigningKey } from './types.js';

// Web APIs only (Workers without nodejs_compat, Vercel Edge, browsers): no Buffer, no node:*, and nothing
// at module load, where Workers forbid crypto and random values.

const ENCODER = new TextEncoder();
// Fatal and BOM-keeping, as on Node: invalid UTF-8 is not JSON, and a BOM must reach JSON.parse to be refused.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const HEX = '0123456789abcdef';

function bytesOf(body: RawBody): Uint8Array {
  return typeof body === 'string' ? ENCODER.encode(body) : body;
}

/** HMAC-SHA256 through Web Crypto. The key is imported on first use: a Worker may not do it at load. */
class WebHmacKey implements SigningKey {
  readonly #secret: Uint8Array;
  #key: Promise<CryptoKey> | undefined;

  constructor(secret: string | Uint8Array) {
    this.#secret = typeof secret === 'string' ? ENCODER.encode(secret) : secret.slice();
  }

  async sign(timestampText: string, rawBody: RawBody): Promise<string> {
    this.#key ??= crypto.subtle.importKey(
      'raw',
      this.#secret as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const prefix = ENCODER.encode(`${timestampText}.`);
    const body = bytesOf(rawBody);
    const signed = new Uint8Array(prefix.byteLength + body.byteLength);
    signed.set(prefix, 0);
    signed.set(body, prefix.byteLength);
    return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, signed)));
  }
}

function toHex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += HEX[byte >> 4]! + HEX[byte & 15]!;
  return text;
}

export const platform: Platform = {
  syncHmac: false,
  HmacKey: WebHmacKey,
  decodeUtf8: (bytes) => UTF8.decode(bytes),
  utf8ByteLength(text) {
    // Counted from the UTF-16 code units, without encoding: a lone surrogate becomes U+FFFD (3 bytes).
    let length = text.length;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x80) continue;
      if (code < 0x800) length += 1;
      else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        length += 2; // a surrogate pair: 2 code units, 4 bytes
        i++;
      } else length += 2;
    }
    return length;
  },
  randomHex(bytes) {
    return toHex(crypto.getRandomValues(new Uint8Array(bytes)));
  },
  keyObjectDigest: () => undefined,
};
