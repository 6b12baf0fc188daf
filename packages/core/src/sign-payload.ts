import { createHmac, KeyObject } from 'node:crypto';
import { hmacKeyFor } from './hmac-key.js';
import type { RawBody } from './raw-body.js';

/** HMAC-SHA256 over `${t}.` + body: the `v1` signature's 32 bytes. */
export function computeSignature(
  timestampText: string,
  rawBody: RawBody,
  secret: string | KeyObject,
): Buffer {
  if (secret instanceof KeyObject) {
    return createHmac('sha256', secret).update(`${timestampText}.`).update(rawBody).digest();
  }
  return hmacKeyFor(secret).sign(timestampText, rawBody);
}

export interface SignOptions {
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

/** The `t=…,v1=…` header value the service would send for this payload. */
export function signPayload(payload: RawBody, secret: string, options: SignOptions = {}): string {
  const t = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return `t=${t},v1=${computeSignature(t, payload, secret).toString('hex')}`;
}
