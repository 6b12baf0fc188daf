import { hmacKeyFor } from './hmac-key.js';
import { checkSecrets } from './option-checks.js';
import type { RawBody } from './raw-body.js';
import type { SignOptions } from './sign-payload.js';

/**
 * `signPayload` on every runtime: the same `t=…,v1=…` header value, through this build's HMAC (node:crypto
 * on Node, Bun and Deno; Web Crypto's `crypto.subtle` in the Web build for Workers, edge runtimes and
 * browsers, which only answers asynchronously). The secret is checked as `createReceiver` checks it.
 */
export async function signPayloadAsync(
  payload: RawBody,
  secret: string,
  options: SignOptions = {},
): Promise<string> {
  checkSecrets(typeof secret === 'string' ? secret : [secret]);
  const t = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return `t=${t},v1=${await hmacKeyFor(secret).sign(t, payload)}`;
}
