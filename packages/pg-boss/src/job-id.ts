import { createHash } from 'node:crypto';

/**
 * The pg-boss job id for an event id: a UUID (pg-boss ids are `uuid`) derived from the id by SHA-256,
 * in the version-8 (custom) layout. The same event always gets the same job id, so pg-boss's
 * `INSERT … ON CONFLICT DO NOTHING` refuses a second job for an event while the first is kept, and
 * `boss.getJobById(queue, jobIdFor(eventId))` finds it.
 */
export function jobIdFor(eventId: string): string {
  const h = createHash('sha256').update(`sms-webhooks:${eventId}`, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
