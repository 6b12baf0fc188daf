import { hexDigestEquals, signatureMismatch } from './digest-match.js';
import type { HmacKey } from './hmac-key.js';
import { platform } from './platform/index.js';
import type { RawBody } from './raw-body.js';

/** Whether the 64 characters of `text` from `start` are lower-case hex digits. */
function isLowerHex(text: string, start: number): boolean {
  for (let i = start; i < start + 64; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x30 || c > 0x39) && (c < 0x61 || c > 0x66)) return false;
  }
  return true;
}

/**
 * The signature check for the header exactly as the service sends it, `t=<1-15 digits>,v1=<64 hex>`,
 * with node:crypto's synchronous HMAC: no split, trim, regex, slice of the signature or hex decoding
 * (together a sixth of a 1 KiB verification). Returns the timestamp when a key's digest matches, and
 * throws `signature_mismatch` when the header is canonical, fresh and well formed but nothing matches.
 * Anything else, valid or not (another form, upper-case hex, a stale timestamp, Web Crypto), returns
 * undefined and is decided by the general path, which gives the same answer on every input (a property
 * test holds them together) and the exact error.
 */
export function matchCanonical(
  text: string,
  rawBody: RawBody,
  keys: readonly HmacKey[],
  tolerance: number,
  now: number,
): number | undefined {
  // Web Crypto answers later, and a digest begun here would be thrown away.
  if (!platform.syncHmac) return undefined;
  if (text.charCodeAt(0) !== 0x74 /* t */ || text.charCodeAt(1) !== 0x3d /* = */) return undefined;
  const comma = text.indexOf(',', 2);
  if (comma < 3 || comma > 17 || text.length !== comma + 68 || !text.startsWith('v1=', comma + 1)) {
    return undefined;
  }
  let timestamp = 0; // at most 15 digits: exact in a double
  for (let i = 2; i < comma; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
    timestamp = timestamp * 10 + (c - 0x30);
  }
  if (Math.abs(now - timestamp) > tolerance) return undefined;
  const start = comma + 4;
  for (const key of keys) {
    const digest = key.sign(text.slice(2, comma), rawBody) as string; // node:crypto: at once
    // A match proves the signature well formed: the digest is lower-case hex.
    if (hexDigestEquals(digest, text, start)) return timestamp;
  }
  // No match: well-formed lower-case hex is a plain mismatch, anything else is for the general parser.
  if (isLowerHex(text, start)) signatureMismatch();
  return undefined;
}
