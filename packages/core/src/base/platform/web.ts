import type { Platform, RawBody } from './types.js';

// Web APIs only (Workers without nodejs_compat, Vercel Edge, browsers): no Buffer, no node:*, and nothing
// at module load, where Workers forbid crypto and random values.

const ENCODER = new TextEncoder();
// Fatal and BOM-keeping, as on Node: invalid UTF-8 is not JSON, and a BOM must reach JSON.parse to be refused.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The Web build's one HMAC: Web Crypto, the only HMAC on Workers and edge runtimes. */
async function sign(secret: string, timestampText: string, rawBody: RawBody): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    ENCODER.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const prefix = ENCODER.encode(`${timestampText}.`);
  const body = typeof rawBody === 'string' ? ENCODER.encode(rawBody) : rawBody;
  const signed = new Uint8Array(prefix.byteLength + body.byteLength);
  signed.set(prefix, 0);
  signed.set(body, prefix.byteLength);
  return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed)));
}

export const platform: Platform = {
  sign,
  signSync: undefined,
  // No timingSafeEqual in Web APIs: every character is compared, whatever differs.
  sameDigest(a, b) {
    if (a.length !== b.length) return false;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return diff === 0;
  },
  decodeUtf8: (bytes) => UTF8.decode(bytes),
  utf8ByteLength: (text) => ENCODER.encode(text).byteLength,
  randomHex: (bytes) => toHex(crypto.getRandomValues(new Uint8Array(bytes))),
};
