import { describeValue, optionError, positiveOption } from '@sms-webhooks/internal';
import { platform, type SignFunction } from '../base/platform/index.js';
import { WebhookVerificationError } from './errors.js';
import type { RawBody } from './parse-event.js';
import { checkSecrets, DEFAULT_TOLERANCE_SECONDS } from './verify-options.js';

/** What {@link verifySignature} checks a signature header against. */
export interface VerifySignatureOptions {
  /** The webhook's `whsec_…` secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Seconds, checked both ways: a timestamp too far in the future is refused like a stale one. */
  tolerance?: number;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

/** Refuses a timestamp more than `tolerance` seconds from `now`, saying by how much and which way. */
export function checkTimestamp(header: SignatureHeader, tolerance: number, now: number): void {
  const skew = header.timestamp - now;
  if (Math.abs(skew) <= tolerance) return;
  const direction = skew > 0 ? 'ahead of' : 'behind';
  throw new WebhookVerificationError(
    'timestamp_out_of_tolerance',
    `Signature timestamp is ${Math.abs(skew)} seconds ${direction} the receiver's clock (tolerance ${tolerance} s). ` +
      'A replayed delivery, or a server clock that needs NTP.',
  );
}

/**
 * The index of the first expected digest (one per secret, in the secrets' order) that equals one of the
 * header's `v1` values, or -1. Each comparison takes constant time.
 */
export function matchSignature(header: SignatureHeader, expected: readonly string[]): number {
  for (let i = 0; i < expected.length; i++) {
    for (const candidate of header.signatures) {
      if (platform.sameDigest(expected[i]!, candidate)) return i;
    }
  }
  return -1;
}

export function signatureMismatch(): WebhookVerificationError {
  return new WebhookVerificationError(
    'signature_mismatch',
    'No signature matches the body with any configured secret. Check the webhook secret and that the body is passed unmodified.',
  );
}

/**
 * The synchronous HMAC, for the synchronous helpers (verifyWebhook, signPayload, …). Web Crypto, the only
 * HMAC some runtimes have, answers asynchronously, so there they throw, saying what works instead.
 */
export function syncSign(caller: string): SignFunction {
  if (platform.signSync !== undefined) return platform.signSync;
  throw optionError(
    'sms-webhooks',
    `${caller} is synchronous and needs node:crypto, which this build does not use (the Web ` +
      'build, chosen for Workers, edge and browser runtimes). Use a receiver: createReceiver(…).handle() ' +
      'or webhookHandler from @sms-webhooks/web, which verify with Web Crypto.',
  );
}

/**
 * The options of one verifyWebhook/verifySignature call, checked as createReceiver checks its own (the
 * same functions): a NaN tolerance or `now` would accept any timestamp, an empty secret signs nothing.
 */
function checkVerifyOptions(options: VerifySignatureOptions, caller: string) {
  if (typeof options !== 'object' || options === null) {
    throw optionError('sms-webhooks', `${caller} needs an options object with a \`secret\` (whsec_…).`);
  }
  const { now } = options;
  if (now !== undefined && (typeof now !== 'number' || !Number.isFinite(now))) {
    throw optionError(
      'sms-webhooks',
      `\`now\` must be the current time in unix seconds, got ${describeValue(now)}. Omit it to use the clock.`,
    );
  }
  return {
    secrets: checkSecrets(options.secret),
    tolerance: positiveOption('tolerance', options.tolerance, DEFAULT_TOLERANCE_SECONDS),
    now: now ?? Math.floor(Date.now() / 1000),
  };
}

/**
 * verifySignature's check, which verifyWebhook makes too: the options (a TypeError, before the request is
 * looked at), then the header, its timestamp and its signatures (WebhookVerificationError).
 */
export function checkSignature(
  rawBody: RawBody,
  value: string | readonly string[] | undefined,
  options: VerifySignatureOptions,
  caller: string,
): SignatureHeader {
  const sign = syncSign(caller);
  const { secrets, tolerance, now } = checkVerifyOptions(options, caller);
  const header = parseSignatureHeader(value);
  checkTimestamp(header, tolerance, now);
  const expected = secrets.map((secret) => sign(secret, header.timestampText, rawBody));
  if (matchSignature(header, expected) < 0) throw signatureMismatch();
  return header;
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
  return checkSignature(rawBody, signatureHeader, options, 'verifySignature').timestamp;
}

/**
 * Bounds on what an unauthenticated caller can make us parse. Several `v1` values exist for secret
 * rotation; nobody rotates through more than a handful at once.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;
export const MAX_SIGNATURES = 16;

export interface SignatureHeader {
  /** `t` exactly as sent: it is part of the signed string, so leading zeros must survive. */
  timestampText: string;
  timestamp: number;
  /** Each `v1` value as 64 lower-case hex characters, the form digests are compared in. */
  signatures: string[];
}

const DIGITS = /^\d{1,15}$/;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

function malformed(detail: string): never {
  throw new WebhookVerificationError('signature_malformed', `Signature header is malformed: ${detail}.`);
}

/**
 * Parses `t=<unix>,v1=<hex>[,v1=<hex>…]` in every form the header may take. Unknown schemes are skipped
 * so new ones can be added.
 */
export function parseSignatureHeader(value: string | readonly string[] | undefined): SignatureHeader {
  // A repeated header is read as one list, so a second `t` in it is caught as a duplicate below.
  const text = typeof value === 'string' ? value : value === undefined ? '' : value.join(',');
  if (text.trim() === '') {
    throw new WebhookVerificationError('signature_missing', 'Signature header is missing.');
  }
  if (text.length > MAX_SIGNATURE_HEADER_LENGTH) {
    malformed(`longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters`);
  }
  let timestampText: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of text.split(',')) {
    const item = rawItem.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq <= 0) malformed('every item must be key=value');
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestampText !== undefined) malformed('more than one t');
      if (!DIGITS.test(val)) malformed('t must be unix seconds, digits only');
      timestampText = val;
    } else if (key === 'v1') {
      if (!HEX_DIGEST.test(val)) malformed('v1 must be 64 hex characters');
      if (signatures.length === MAX_SIGNATURES) malformed(`more than ${MAX_SIGNATURES} v1 values`);
      signatures.push(val.toLowerCase());
    }
  }
  if (timestampText === undefined) malformed('no t');
  if (signatures.length === 0) malformed('no v1 signature');
  return { timestampText, timestamp: Number(timestampText), signatures };
}
