import { createHmac, type KeyObject } from 'node:crypto';
import type { RawBody } from './raw-body.js';

/** HMAC-SHA256 over `${t}.` + body, streamed into the HMAC so the body is never copied. */
export function computeSignature(
  timestampText: string,
  rawBody: RawBody,
  secret: string | KeyObject,
): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`).update(rawBody).digest();
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
