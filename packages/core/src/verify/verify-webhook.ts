import { type Clock, systemClock } from './clock.js';
import type { AnyWebhookEvent } from './event-types.js';
import {
  DEFAULT_HEADER_PREFIX,
  type HeaderNames,
  type HeaderSource,
  headerNames,
  readHeader,
} from './headers.js';
import { type HmacKey, requireSyncHmac } from './hmac-key.js';
import { checkHeaderPrefix } from './option-checks.js';
import { checkEventHeaders, parseEvent } from './parse-event.js';
import { isRawBody, type RawBody } from './raw-body.js';
import { checkSignatureHeader, checkVerifyOptions } from './verify-signature.js';

export interface VerifyWebhookOptions {
  /** The webhook's `whsec_…` secret, or several during a rotation. */
  secret: string | readonly string[];
  /** Seconds, both directions. Default 300. */
  tolerance?: number;
  /** Default `x-service`, giving `x-service-signature`, `x-service-event-id`, … */
  headerPrefix?: string;
  /** Current time in unix seconds, for tests. */
  now?: number;
}

/**
 * Returns the event, or throws WebhookVerificationError. On the Web build (Web Crypto) the signature check
 * completes later: the result is then a promise, rejecting with the same errors.
 */
export type Verifier = (
  rawBody: RawBody,
  headers: HeaderSource,
  now?: number,
) => AnyWebhookEvent | Promise<AnyWebhookEvent>;

function parseChecked(rawBody: RawBody, headers: HeaderSource, names: HeaderNames): AnyWebhookEvent {
  const event = parseEvent(rawBody);
  checkEventHeaders(event, headers, names);
  return event;
}

/** One verification with options already checked. */
function verify(
  rawBody: RawBody,
  headers: HeaderSource,
  keys: readonly HmacKey[],
  tolerance: number,
  names: HeaderNames,
  now: number,
): AnyWebhookEvent | Promise<AnyWebhookEvent> {
  // Signature first: nothing in an unsigned body is looked at.
  const checked = checkSignatureHeader(readHeader(headers, names.signature), rawBody, keys, tolerance, now);
  if (typeof checked === 'number') return parseChecked(rawBody, headers, names);
  return checked.then(() => parseChecked(rawBody, headers, names));
}

/** A verifier with its options resolved once; the receiver keeps one for its lifetime. */
export function createVerifier(
  keys: readonly HmacKey[],
  tolerance: number,
  names: HeaderNames,
  clock: Clock = systemClock,
): Verifier {
  return (rawBody, headers, now = Math.floor(clock.now() / 1000)) =>
    verify(rawBody, headers, keys, tolerance, names, now);
}

const DEFAULT_NAMES = headerNames(DEFAULT_HEADER_PREFIX);
// The last custom prefix's names: callers pass the same prefix every time, so the regex check and the
// four header-name strings are built once, not per delivery.
let lastPrefix: string | undefined;
let lastNames = DEFAULT_NAMES;

function namesFor(prefix: unknown): HeaderNames {
  if (prefix === undefined) return DEFAULT_NAMES;
  if (prefix !== lastPrefix) {
    lastNames = headerNames(checkHeaderPrefix(prefix));
    lastPrefix = prefix as string;
  }
  return lastNames;
}

/**
 * Verifies a delivery and returns its event; throws `WebhookVerificationError` with a stable `code`.
 * `rawBody` must be the bytes exactly as received: a parsed and re-serialised body will not match.
 * Bad options (empty or padded secret, non-positive or NaN tolerance, …) throw a TypeError first, with
 * the same checks and messages as createReceiver.
 */
export function verifyWebhook(
  rawBody: RawBody,
  headers: HeaderSource,
  options: VerifyWebhookOptions,
): AnyWebhookEvent {
  if (!isRawBody(rawBody)) {
    throw new TypeError(
      'sms-webhooks: verifyWebhook needs the raw body (string, Buffer or Uint8Array). Got an already-parsed value: read the body before any JSON parser runs.',
    );
  }
  requireSyncHmac('verifyWebhook');
  const { keys, tolerance, now } = checkVerifyOptions(options, 'verifyWebhook');
  // With node:crypto (the only platform that gets past requireSyncHmac) the check is synchronous.
  return verify(rawBody, headers, keys, tolerance, namesFor(options.headerPrefix), now) as AnyWebhookEvent;
}
