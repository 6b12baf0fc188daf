import { createHash } from 'node:crypto';

/** Job ids up to this many UTF-8 bytes stay readable; longer ones are hashed, as the Redis store does. */
export const MAX_RAW_JOB_ID_BYTES = 200;

/**
 * The BullMQ job id for an event id. BullMQ 6 refuses custom ids containing ':' (unless they happen to
 * have exactly three parts, its legacy repeat-job shape) and ids that read as integers, and every id
 * becomes part of several Redis keys. So: `%` and `:` are percent-escaped (reversible with
 * `eventIdOfJob`; ids without them are unchanged), and anything still over 200 bytes becomes
 * `sha256-<hex>`. Event ids start with `evt_`, so the two forms cannot collide, and neither is an integer.
 */
export function jobIdFor(eventId: string): string {
  const escaped = eventId.replace(/%/g, '%25').replace(/:/g, '%3A');
  if (Buffer.byteLength(escaped, 'utf8') <= MAX_RAW_JOB_ID_BYTES) return escaped;
  return `sha256-${createHash('sha256').update(eventId, 'utf8').digest('hex')}`;
}

/** The event id back from an escaped job id; `undefined` for a hashed one (read `job.data.event.id`). */
export function eventIdOfJob(jobId: string): string | undefined {
  if (jobId.startsWith('sha256-')) return undefined;
  return jobId.replace(/%(25|3A)/g, (code) => (code === '%25' ? '%' : ':'));
}
