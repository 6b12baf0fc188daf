import type { KeyObject } from 'node:crypto';
import { hmacKeyFor, requireSyncHmac } from './hmac-key.js';
import { checkSecrets } from './option-checks.js';
import { platform } from './platform/index.js';
import type { RawBody } from './raw-body.js';

/** HMAC-SHA256 over `${t}.` + body: the `v1` signature's 32 bytes. */
export function computeSignature(
  timestampText: string,
  rawBody: RawBody,
  secret: string | KeyObject,
): Buffer {
  return Buffer.from(signatureHex(timestampText, rawBody, secret), 'hex');
}

function signatureHex(timestampText: string, rawBody: RawBody, secret: string | KeyObject): string {
  requireSyncHmac('computeSignature');
  // A string on the one platform that gets past requireSyncHmac (node:crypto).
  return (platform.keyObjectDigest(secret, timestampText, rawBody) ??
    hmacKeyFor(secret as string).sign(timestampText, rawBody)) as string;
}

export interface SignOptions {
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

/**
 * The `t=…,v1=…` header value the service would send for this payload. The secret is checked as
 * `createReceiver` checks it: an empty or whitespace-padded one throws a TypeError here, rather than signing
 * something every receiver then refuses with a bare `signature_mismatch`.
 */
export function signPayload(payload: RawBody, secret: string, options: SignOptions = {}): string {
  requireSyncHmac('signPayload');
  checkSecrets(typeof secret === 'string' ? secret : [secret]);
  const t = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return `t=${t},v1=${signatureHex(t, payload, secret)}`;
}
