import { platform } from '../base/platform/index.js';
import type { RawBody } from '../base/platform/types.js';
import { WebhookVerificationError } from './errors.js';
import type { AnyWebhookEvent } from './event-types.js';
import type { HeaderNames, HeaderSource } from './headers.js';
import { readHeader } from './headers.js';

/** `String.prototype.isWellFormed` (Node 20+, every runtime we support); lib ES2024 would declare it. */
type WellFormed = string & { isWellFormed(): boolean };

function invalid(detail: string): never {
  throw new WebhookVerificationError('payload_invalid', `Body is not a webhook event: ${detail}.`);
}

/** Parses the body once and checks the envelope of spec section 2 ("Event"). */
export function parseEvent(rawBody: RawBody): AnyWebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(rawBodyToString(rawBody));
  } catch {
    invalid('not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('not a JSON object');
  const e = value as Record<string, unknown>;
  if (typeof e.id !== 'string' || !e.id.startsWith('evt_') || e.id.length === 4) {
    invalid('`id` must be a string starting with "evt_"');
  }
  // JSON may escape a lone surrogate (`\ud800`); UTF-8 cannot hold one, so a store that encodes keys as
  // UTF-8 would turn two such ids into one (both become U+FFFD) and answer the second `duplicate`.
  if (!(e.id as WellFormed).isWellFormed()) invalid('`id` must be well-formed Unicode (no lone surrogates)');
  if (e.object !== 'event') invalid('`object` must be "event"');
  if (typeof e.type !== 'string' || e.type === '') invalid('`type` must be a non-empty string');
  if (typeof e.created_at !== 'string') invalid('`created_at` must be a string');
  if (typeof e.test !== 'boolean') invalid('`test` must be a boolean');
  if (typeof e.data !== 'object' || e.data === null || Array.isArray(e.data))
    invalid('`data` must be an object');
  return value as AnyWebhookEvent;
}

function sameAsBody(header: string | readonly string[] | undefined, expected: string): boolean {
  if (header === undefined) return true;
  if (typeof header === 'string') return header.trim() === expected;
  return header.every((h) => h.trim() === expected);
}

/** The id and type headers are optional, but when sent they must agree with the signed body. */
export function checkEventHeaders(event: AnyWebhookEvent, headers: HeaderSource, names: HeaderNames): void {
  if (!sameAsBody(readHeader(headers, names.eventId), event.id)) {
    throw new WebhookVerificationError(
      'header_mismatch',
      `The ${names.eventId} header differs from the body's id.`,
    );
  }
  if (!sameAsBody(readHeader(headers, names.eventType), event.type)) {
    throw new WebhookVerificationError(
      'header_mismatch',
      `The ${names.eventType} header differs from the body's type.`,
    );
  }
}

export type { RawBody };

export function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/** Throws a TypeError on bytes that are not valid UTF-8. */
export function rawBodyToString(body: RawBody): string {
  return typeof body === 'string' ? body : platform.decodeUtf8(body);
}

export function rawBodyByteLength(body: RawBody): number {
  return typeof body === 'string' ? platform.utf8ByteLength(body) : body.byteLength;
}
