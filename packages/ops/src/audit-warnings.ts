import type { AuditedEvent } from './audit-report.js';

/** How the warning that makes a report untrusted starts. */
export const UNTRUSTED = 'None of the';

/** What makes the report less than certain: a store that holds none of the delivered events, no `receiver`. */
export function warningsOf(events: AuditedEvent[], toldHandled: boolean): string[] {
  const warnings: string[] = [];
  const delivered = events.filter((e) => !e.ignored && e.deliveredAt !== null);
  // A queue's failed job is a trace too (a hand-off gives its claim back when the job fails for good),
  // and so is a kept delivery (a crashed run's claim ends with its lease; the body it kept stays).
  const traced = (e: AuditedEvent) =>
    e.ignored ||
    e.stored !== 'none' ||
    e.failedJob !== undefined ||
    (e.replay !== undefined && e.replay !== 'not-kept');
  if (delivered.length > 0 && !events.some(traced)) {
    warnings.push(
      `${UNTRUSTED} ${delivered.length} delivered event(s) is in the store, though the receiver claims each one before it answers: the store, its prefix or table, the key prefix or the tenant is probably not the receiver's. This report cannot be trusted.`,
    );
  }
  if (!toldHandled && events.some((e) => e.category === 'unfinished')) {
    warnings.push(
      'Not told which event types the app handles (receiver, or --receiver / --handles): the receiver answers a type it has no handler for 200 and stores nothing, so such events read as unfinished here.',
    );
  }
  return warnings;
}
