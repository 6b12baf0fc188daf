import { platform } from '../base/platform/index.js';
import type { RawBody } from './parse-event.js';
import { checkSecrets } from './verify-options.js';
import { syncSign } from './verify-signature.js';

/** Options of {@link signPayload} and {@link signPayloadAsync}. */
export interface SignOptions {
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

function timestampOf(options: SignOptions): string {
  return String(options.timestamp ?? Math.floor(Date.now() / 1000));
}

/**
 * The `t=…,v1=…` header value the service would send for this payload. The secret is checked as
 * `createReceiver` checks it: an empty or whitespace-padded one throws a TypeError here, rather than signing
 * something every receiver then refuses with a bare `signature_mismatch`.
 */
export function signPayload(payload: RawBody, secret: string, options: SignOptions = {}): string {
  const sign = syncSign('signPayload');
  checkSecrets(typeof secret === 'string' ? secret : [secret]);
  const t = timestampOf(options);
  return `t=${t},v1=${sign(secret, t, payload)}`;
}

/**
 * `signPayload` on every runtime, through this build's HMAC (node:crypto on Node, Bun and Deno; Web
 * Crypto in the Web build for Workers, edge runtimes and browsers, which only answers asynchronously).
 */
export async function signPayloadAsync(
  payload: RawBody,
  secret: string,
  options: SignOptions = {},
): Promise<string> {
  checkSecrets(typeof secret === 'string' ? secret : [secret]);
  const t = timestampOf(options);
  return `t=${t},v1=${await platform.sign(secret, t, payload)}`;
}
