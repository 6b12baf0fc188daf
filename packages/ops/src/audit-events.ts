import type { WebhookDelivery } from '@sms-webhooks/client';
import type { StoredEvent } from '@sms-webhooks/core/store';
import type { CheckedAuditOptions } from './audit-options.js';
import { fold } from './audit-records.js';
import type { AuditCategory, AuditedEvent } from './audit-report.js';
import { readStore } from './audit-store.js';
import type { HandledTypes } from './coverage.js';

/** An audited event, with when its first record was made (for the order within a category). */
export type DatedEvent = AuditedEvent & { createdAt: number };

/**
 * Each event of the records, joined with what the store holds for it and sorted into its category. The
 * store is asked only about the types the receiver handles: it answers the others 200 and stores nothing.
 */
export async function auditedEvents(
  o: CheckedAuditOptions,
  byEvent: ReadonlyMap<string, WebhookDelivery[]>,
  handled: HandledTypes | undefined,
): Promise<DatedEvent[]> {
  const folded = [...byEvent].map(([eventId, list]) => {
    const f = fold(list);
    const ignored = handled !== undefined && !handled.any && !handled.types.includes(f.eventType);
    return { eventId, f, ignored };
  });
  const asked = folded.filter((e) => !e.ignored);
  const seen = await readStore(
    o.store,
    asked.map((e) => o.keyOf(e.eventId)),
    (read) => o.onProgress?.(read, asked.length),
  );
  const storedOf = new Map<string, StoredEvent | undefined>(asked.map((e, i) => [e.eventId, seen[i]]));
  return folded.map(({ eventId, f, ignored }): DatedEvent => {
    const stored = storedOf.get(eventId)?.state ?? 'none';
    const category: AuditCategory =
      ignored || stored === 'completed'
        ? 'fine'
        : f.deliveredAt !== null
          ? 'unfinished'
          : f.pending
            ? 'retrying'
            : 'missed';
    return {
      eventId,
      eventType: f.eventType,
      category,
      attempts: f.attempts,
      lastStatusCode: f.lastStatusCode,
      lastError: f.lastError,
      nextAttemptAt: category === 'retrying' ? f.nextAttemptAt : null,
      deliveredAt: f.deliveredAt,
      stored,
      ignored,
      createdAt: Date.parse(f.createdAt),
    };
  });
}
