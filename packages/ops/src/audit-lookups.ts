import type { DedupeStore } from '@sms-webhooks/core/store';
import type { AuditedEvent, FailedJobInfo } from './audit-report.js';
import { mapBounded } from './bounded.js';

/** Whether the store kept each unfinished or missed event's body, a few reads at a time. */
export async function withKept(
  events: AuditedEvent[],
  store: DedupeStore,
  keyOf: (eventId: string) => string,
): Promise<void> {
  await mapBounded(needsLook(events), 16, async (e) => {
    const kept = await store.keptDelivery!(keyOf(e.eventId));
    e.replay = kept === undefined ? 'not-kept' : kept.body === undefined ? 'too-large' : 'kept';
  });
}

/** The queue's failed job of each unfinished or missed event, a few lookups at a time. */
export async function withFailedJobs(
  events: AuditedEvent[],
  findFailed: (eventId: string) => Promise<FailedJobInfo | undefined>,
): Promise<void> {
  await mapBounded(needsLook(events), 8, async (e) => {
    const failed = await findFailed(e.eventId);
    if (failed) e.failedJob = { attempts: failed.attempts, error: failed.error, failedAt: failed.failedAt };
  });
}

/** The events worth a second look: missed or unfinished. */
function needsLook(events: AuditedEvent[]): AuditedEvent[] {
  return events.filter((e) => e.category === 'unfinished' || e.category === 'missed');
}
