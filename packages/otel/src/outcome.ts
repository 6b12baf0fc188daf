import type { ReceiverResponse } from '@sms-webhooks/core';

/**
 * What became of a delivery, from the answer the receiver gave:
 * - `received`, `ignored` (no handler for its type), `duplicate` (already processed), `stale` (older than
 *   the newest event completed for its object, with the receiver's `order`): 200;
 * - `in_flight`: 409, being processed elsewhere right now;
 * - `refused`: turned away before it was verified (bad signature, too large, wrong method …), or
 *   `overloaded` (the receiver's `maxConcurrency` and wait list were full), verified or not;
 * - `invalid`: verified, but its `data` failed a handler's schema (`payload_schema_mismatch`): 422, no
 *   handler ran, the service retries. Apart from `failed`, since the fix is the schema (or the service's
 *   payload), not the app's health;
 * - `failed`: verified, but the store or a handler ('after-handlers') failed: 5xx, the service retries.
 */
export type DeliveryOutcome =
  | 'received'
  | 'ignored'
  | 'duplicate'
  | 'stale'
  | 'in_flight'
  | 'refused'
  | 'invalid'
  | 'failed';

export function outcomeOf(response: ReceiverResponse, verified: boolean): DeliveryOutcome {
  if (response.status < 300) {
    return acceptedOutcome(response);
  }
  const code = errorCodeOf(response);
  if (code === 'in_flight') return 'in_flight';
  if (code === 'payload_schema_mismatch') return 'invalid';
  // Nothing failed: the receiver turned it away unclaimed, for the service to retry.
  if (code === 'overloaded') return 'refused';
  return verified ? 'failed' : 'refused';
}

/** The outcome of a 200: what the body says beside `received`. */
export function acceptedOutcome(response: ReceiverResponse): AcceptedOutcome {
  const json = response.json as { duplicate?: boolean; ignored?: boolean; stale?: boolean };
  if (json.duplicate === true) return 'duplicate';
  if (json.ignored === true) return 'ignored';
  if (json.stale === true) return 'stale';
  return 'received';
}

export type AcceptedOutcome = 'received' | 'duplicate' | 'ignored' | 'stale';

/** The stable error code of a non-2xx answer (`signature_mismatch`, `in_flight` …). */
export function errorCodeOf(response: ReceiverResponse): string | undefined {
  if (response.status < 300) return undefined;
  const code = (response.json as { error?: { code?: unknown } }).error?.code;
  return typeof code === 'string' ? code : String(response.status);
}
