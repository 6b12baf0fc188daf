import { platform, type SigningKey } from './platform/index.js';

/** A webhook secret prepared for HMAC-SHA256 by this build's platform (node:crypto or Web Crypto). */
export type HmacKey = SigningKey;
export const HmacKey: new (secret: string | Uint8Array) => HmacKey = platform.HmacKey;

/**
 * Keys for secrets passed per call (verifyWebhook, verifySignature, signPayload), which are the same
 * one or two strings every time. Bounded: a caller cycling through many secrets just rebuilds them.
 */
const recent = new Map<string, HmacKey>();
const RECENT_MAX = 16;

export function hmacKeyFor(secret: string): HmacKey {
  let key = recent.get(secret);
  if (key === undefined) {
    if (recent.size === RECENT_MAX) recent.clear();
    key = new HmacKey(secret);
    recent.set(secret, key);
  }
  return key;
}

/**
 * For the synchronous helpers (verifyWebhook, signPayload, …): Web Crypto, the only HMAC some runtimes
 * have, answers asynchronously, so there they cannot work and say what does.
 */
export function requireSyncHmac(caller: string): void {
  if (!platform.syncHmac) {
    throw new TypeError(
      `sms-webhooks: ${caller} is synchronous and needs node:crypto, which this build does not use (the Web ` +
        'build, chosen for Workers, edge and browser runtimes). Use a receiver: createReceiver(…).handle() ' +
        'or webhookHandler from @sms-webhooks/web, which verify with Web Crypto.',
    );
  }
}
