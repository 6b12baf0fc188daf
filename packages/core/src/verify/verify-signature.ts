import { matchCanonical } from './canonical-signature.js';
import { hexDigestEquals, signatureMismatch } from './digest-match.js';
import { WebhookVerificationError } from './errors.js';
import { type HmacKey, hmacKeyFor, requireSyncHmac } from './hmac-key.js';
import {
  checkSecrets,
  DEFAULT_TOLERANCE_SECONDS,
  describeValue,
  optionError,
  positiveOption,
} from './option-checks.js';
import type { RawBody } from './raw-body.js';
import { parseSignatureHeader, type SignatureHeader } from './signature-header.js';

export { DEFAULT_TOLERANCE_SECONDS };

export interface VerifySignatureOptions {
  secret: string | readonly string[];
  /** Seconds, checked both ways: a timestamp too far in the future is refused like a stale one. */
  tolerance?: number;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

function matchesAny(digest: string, signatures: readonly string[]): boolean {
  for (const candidate of signatures) {
    if (hexDigestEquals(digest, candidate)) return true;
  }
  return false;
}

/** The rest of checkSignature once a digest comes as a promise (Web Crypto), from key `index` on. */
async function checkAsync(
  first: Promise<string>,
  index: number,
  rawBody: RawBody,
  header: SignatureHeader,
  keys: readonly HmacKey[],
): Promise<void> {
  if (matchesAny(await first, header.signatures)) return;
  for (let i = index + 1; i < keys.length; i++) {
    if (matchesAny(await keys[i]!.sign(header.timestampText, rawBody), header.signatures)) return;
  }
  signatureMismatch();
}

/**
 * Checks a parsed header against the body; `keys` are the receiver's secrets, any may match. Throws, or
 * with Web Crypto's asynchronous digests returns a promise that rejects, with WebhookVerificationError.
 * With node:crypto it returns undefined: no promise on the Node path.
 */
export function checkSignature(
  rawBody: RawBody,
  header: SignatureHeader,
  keys: readonly HmacKey[],
  tolerance: number,
  now: number,
): undefined | Promise<void> {
  if (Math.abs(now - header.timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `Signature timestamp is more than ${tolerance} seconds away from the receiver's clock.`,
    );
  }
  for (let i = 0; i < keys.length; i++) {
    const expected = keys[i]!.sign(header.timestampText, rawBody);
    if (typeof expected !== 'string') return checkAsync(expected, i, rawBody, header, keys);
    if (matchesAny(expected, header.signatures)) return undefined;
  }
  signatureMismatch();
}

/**
 * Checks a signature header against the body and returns its timestamp, or with Web Crypto a promise of
 * it. The header as the service sends it takes the canonical path; any other form is parsed in full.
 */
export function checkSignatureHeader(
  value: string | readonly string[] | undefined,
  rawBody: RawBody,
  keys: readonly HmacKey[],
  tolerance: number,
  now: number,
): number | Promise<number> {
  if (typeof value === 'string') {
    const timestamp = matchCanonical(value, rawBody, keys, tolerance, now);
    if (timestamp !== undefined) return timestamp;
  }
  const header = parseSignatureHeader(value);
  const checked = checkSignature(rawBody, header, keys, tolerance, now);
  return checked === undefined ? header.timestamp : checked.then(() => header.timestamp);
}

export interface CheckedOptions {
  keys: readonly HmacKey[];
  tolerance: number;
  now: number;
}

// The last plain secret's keys: callers pass the same secret on every call, so it is checked and its key
// looked up once, not per delivery. Only a string is remembered: an array could be changed in place.
let lastSecret: string | undefined;
let lastKeys: readonly HmacKey[] = [];

function keysFor(secret: unknown): readonly HmacKey[] {
  if (secret === lastSecret && lastSecret !== undefined) return lastKeys;
  const keys = checkSecrets(secret).map(hmacKeyFor);
  if (typeof secret === 'string') {
    lastSecret = secret;
    lastKeys = keys;
  }
  return keys;
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
    throw optionError(
      'sms-webhooks',
      `\`now\` must be the current time in unix seconds, got ${describeValue(now)}. Omit it to use the clock.`,
    );
  }
  return {
    keys: keysFor(options.secret),
    tolerance: positiveOption('tolerance', options.tolerance, DEFAULT_TOLERANCE_SECONDS),
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
  requireSyncHmac('verifySignature');
  const { keys, tolerance, now } = checkVerifyOptions(options, 'verifySignature');
  // With node:crypto (the only platform that gets past requireSyncHmac) the check is synchronous.
  return checkSignatureHeader(signatureHeader, rawBody, keys, tolerance, now) as number;
}
