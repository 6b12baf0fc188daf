import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { type HmacKey, hmacKeyFor } from './hmac-key.js';
import type { RawBody } from './raw-body.js';
import { checkSecrets, DEFAULT_TOLERANCE_SECONDS, positive } from './receiver-options.js';
import { parseSignatureHeader, type SignatureHeader } from './signature-header.js';

export { DEFAULT_TOLERANCE_SECONDS };

export interface VerifySignatureOptions {
  secret: string | readonly string[];
  /** Seconds, checked both ways: a timestamp too far in the future is refused like a stale one. */
  tolerance?: number;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

/** Checks a parsed header against the body; `keys` are the receiver's secrets, any may match. */
export function checkSignature(
  rawBody: RawBody,
  header: SignatureHeader,
  keys: readonly HmacKey[],
  tolerance: number,
  now: number,
): void {
  if (Math.abs(now - header.timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `Signature timestamp is more than ${tolerance} seconds away from the receiver's clock.`,
    );
  }
  for (const key of keys) {
    const expected = key.sign(header.timestampText, rawBody);
    for (const candidate of header.signatures) {
      if (timingSafeEqual(expected, candidate)) return;
    }
  }
  throw new WebhookVerificationError(
    'signature_mismatch',
    'No signature matches the body with any configured secret. Check the webhook secret and that the body is passed unmodified.',
  );
}

export interface CheckedOptions {
  keys: readonly HmacKey[];
  tolerance: number;
  now: number;
}

/**
 * The options of one verifyWebhook/verifySignature call, checked as createReceiver checks its own (the
 * same functions): a NaN tolerance or `now` would accept any timestamp, an empty secret signs nothing.
 * Cheap checks only, run on every call: no cache to grow or to hand a mutated options object.
 */
export function checkVerifyOptions(options: VerifySignatureOptions, caller: string): CheckedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`sms-webhooks: ${caller} needs an options object with a \`secret\` (whsec_…).`);
  }
  const { now } = options;
  if (now !== undefined && (typeof now !== 'number' || !Number.isFinite(now))) {
    throw new TypeError(
      `sms-webhooks: \`now\` must be the current time in unix seconds, got ${String(now)}. Omit it to use the clock.`,
    );
  }
  return {
    keys: checkSecrets(options.secret).map(hmacKeyFor),
    tolerance: positive('tolerance', options.tolerance, DEFAULT_TOLERANCE_SECONDS, false),
    now: now ?? Math.floor(Date.now() / 1000),
  };
}

/**
 * Verifies the signature header against the raw body; returns the signed timestamp. Throws a TypeError
 * for bad options (before looking at the request) and `WebhookVerificationError` for a bad request.
 */
export function verifySignature(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | undefined,
  options: VerifySignatureOptions,
): number {
  const { keys, tolerance, now } = checkVerifyOptions(options, 'verifySignature');
  const header = parseSignatureHeader(signatureHeader);
  checkSignature(rawBody, header, keys, tolerance, now);
  return header.timestamp;
}
