import type { WebhookDelivery } from './types.js';

/** Where a delivery stands, read from the record's fields rather than from its `status`. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'in_progress' | 'failed';

/** Spec section 6: at most 6 attempts per event. */
const MAX_ATTEMPTS = 6;

/**
 * The spec shows `status: "pending"` on a record that already has one attempt and a 200 response, so
 * `status` cannot tell a delivered event from one still waiting; the other fields can, on the real
 * service and on the emulator alike:
 * - `delivered_at` set: a 2xx came back;
 * - `next_attempt_at` set: an attempt failed and the next one is scheduled;
 * - six attempts, or `status: "failed"`, and neither of the above: no further attempt will come;
 * - otherwise an attempt is under way (its result is not recorded yet).
 */
export function deliveryOutcome(
  record: Pick<WebhookDelivery, 'status' | 'attempts' | 'delivered_at' | 'next_attempt_at'>,
): DeliveryOutcome {
  if (record.delivered_at !== null) return 'delivered';
  if (record.next_attempt_at !== null) return 'retrying';
  if (record.status === 'failed' || record.attempts >= MAX_ATTEMPTS) return 'failed';
  return 'in_progress';
}
