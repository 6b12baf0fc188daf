import type { KeyObject } from 'node:crypto';
import type { AnyWebhookEvent } from './event-types.js';
import {
  DEFAULT_HEADER_PREFIX,
  type HeaderNames,
  type HeaderSource,
  headerNames,
  readHeader,
} from './headers.js';
import { checkEventHeaders, parseEvent } from './parse-event.js';
import { isRawBody, type RawBody } from './raw-body.js';
import { parseSignatureHeader } from './signature-header.js';
import { checkSignature, DEFAULT_TOLERANCE_SECONDS } from './verify-signature.js';

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

export type Verifier = (rawBody: RawBody, headers: HeaderSource, now?: number) => AnyWebhookEvent;

/** A verifier with its options resolved once; the receiver keeps one for its lifetime. */
export function createVerifier(
  keys: readonly (string | KeyObject)[],
  tolerance: number,
  names: HeaderNames,
): Verifier {
  return (rawBody, headers, now = Math.floor(Date.now() / 1000)) => {
    const header = parseSignatureHeader(readHeader(headers, names.signature));
    // Signature first: nothing in an unsigned body is looked at.
    checkSignature(rawBody, header, keys, tolerance, now);
    const event = parseEvent(rawBody);
    checkEventHeaders(event, headers, names);
    return event;
  };
}

const DEFAULT_NAMES = headerNames(DEFAULT_HEADER_PREFIX);

/**
 * Verifies a delivery and returns its event; throws `WebhookVerificationError` with a stable `code`.
 * `rawBody` must be the bytes exactly as received: a parsed and re-serialised body will not match.
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
  const names = options.headerPrefix === undefined ? DEFAULT_NAMES : headerNames(options.headerPrefix);
  const keys = typeof options.secret === 'string' ? [options.secret] : options.secret;
  return createVerifier(keys, options.tolerance ?? DEFAULT_TOLERANCE_SECONDS, names)(
    rawBody,
    headers,
    options.now,
  );
}
