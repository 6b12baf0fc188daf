import { optionError } from '../base/option-checks.js';
import { platform } from '../base/platform/index.js';
import type { AnyWebhookEvent } from './event-types.js';
import { type HeaderNames, type HeaderSource, headerNames, readHeader } from './headers.js';
import { checkEventHeaders, isRawBody, parseEvent, type RawBody } from './parse-event.js';
import { checkHeaderPrefix } from './verify-options.js';
import {
  checkSignature,
  checkSignatureSync,
  checkVerifyOptions,
  requireSyncHmac,
  type SignatureCheck,
} from './verify-signature.js';

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

/** The event of a body whose signature was checked: the envelope, then the id and type headers. */
function parseVerified(rawBody: RawBody, headers: HeaderSource, names: HeaderNames): AnyWebhookEvent {
  const event = parseEvent(rawBody);
  checkEventHeaders(event, headers, names);
  return event;
}

/**
 * The receiver's verification, on every platform: signature first (nothing in an unsigned body is looked
 * at), then the envelope. Rejects with WebhookVerificationError.
 */
export async function verifyDelivery(
  rawBody: RawBody,
  headers: HeaderSource,
  check: SignatureCheck & { names: HeaderNames },
  now: number,
): Promise<AnyWebhookEvent> {
  const signature = readHeader(headers, check.names.signature);
  if (platform.syncHmac) checkSignatureSync(rawBody, signature, check, now);
  else await checkSignature(rawBody, signature, check, now);
  return parseVerified(rawBody, headers, check.names);
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
    throw optionError(
      'sms-webhooks',
      'verifyWebhook needs the raw body (string, Buffer or Uint8Array). Got an already-parsed value: read the body before any JSON parser runs.',
    );
  }
  requireSyncHmac('verifyWebhook');
  const { now, ...check } = checkVerifyOptions(options, 'verifyWebhook');
  const names = headerNames(checkHeaderPrefix(options.headerPrefix));
  checkSignatureSync(rawBody, readHeader(headers, names.signature), check, now);
  return parseVerified(rawBody, headers, names);
}
