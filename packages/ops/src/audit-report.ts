import type { StoredEvent } from '@sms-webhooks/core/store';

/**
 * - `missed`: the service gave up (no further attempt, no 2xx) and the store never completed it;
 * - `retrying`: not delivered yet; the service tries again at `nextAttemptAt`;
 * - `unfinished`: answered 2xx, but the store has no completion (a crash after a fast 200, a handler that
 *   never succeeded, a claim still held);
 * - `fine`: delivered and completed, completed by a later run, or a type the receiver ignores.
 */
export type AuditCategory = 'missed' | 'retrying' | 'unfinished' | 'fine';

/** The categories, in the order a report counts them. */
export const AUDIT_CATEGORIES: readonly AuditCategory[] = ['missed', 'retrying', 'unfinished', 'fine'];

/**
 * What a queue's failed set holds for an event (`findFailed` of @sms-webhooks/bullmq or /pg-boss,
 * `failedFinder` of /rabbitmq).
 */
export interface FailedJobInfo {
  /** Attempts the queue made. */
  attempts: number;
  /** The last attempt's error message. */
  error: string | undefined;
  /** When the job was moved to the failed set. */
  failedAt: Date | undefined;
}

/** One event the service's delivery records name, joined with what the store holds for it. */
export interface AuditedEvent {
  /** The event's id (`evt_…`). */
  eventId: string;
  /** The event's type. */
  eventType: string;
  /** What the audit makes of it; see {@link AuditCategory}. */
  category: AuditCategory;
  /** The highest attempt number among the event's delivery records. */
  attempts: number;
  /** The app's answer to the latest attempt, or null when none answered. */
  lastStatusCode: number | null;
  /** Why the latest attempt failed, as the service records it, or null. */
  lastError: string | null;
  /** ISO time of the next attempt while `retrying`, else null. */
  nextAttemptAt: string | null;
  /** ISO time of the first 2xx, or null. */
  deliveredAt: string | null;
  /** What the store holds for the event: `none` when nothing (never claimed, released, or expired). */
  stored: StoredEvent['state'] | 'none';
  /** The receiver has no handler for the type: it answers 200 and records nothing, by design. */
  ignored: boolean;
  /** The queue's failed job for the event, when `findFailed` was given and found one. */
  failedJob?: FailedJobInfo;
  /**
   * For a missed or unfinished event, when the store keeps deliveries (`keepDeliveries`): `kept` (its
   * body is there: `replayEvents` / `sms-webhooks replay` can run it), `too-large` (only its record), or
   * `not-kept` (never verified by the receiver, not kept, or past its retention).
   */
  replay?: 'kept' | 'too-large' | 'not-kept';
}

/** What {@link auditWebhook} found: counts per category, each event, and how far to trust it. */
export interface AuditReport {
  /** The first of `webhookIds`. */
  webhookId: string;
  /** The webhooks audited together (both while a rotation keeps the old one). */
  webhookIds: string[];
  /** ISO time the audit ran. */
  checkedAt: string;
  /**
   * The records it covered: the service lists recent records only (how many is not documented), so
   * anything older than `from` was not checked. `leftOut` counts records older than `retainMs`, whose
   * store records may have expired, and `tests` the `webhook.test` deliveries of the test operation.
   */
  window: { from: string | null; to: string | null; records: number; leftOut: number; tests: number };
  /** Events per category. */
  counts: Record<AuditCategory, number>;
  /** Worst first: missed, unfinished, retrying, fine; oldest first within each. */
  events: AuditedEvent[];
  /** No event missed or unfinished, and `trusted`. */
  ok: boolean;
  /**
   * False when none of the delivered events the receiver handles is in the store: the receiver claims
   * each before it answers, so the store (or `keyPrefix`, or `tenant`) is almost surely not the
   * receiver's, and every `unfinished` here is probably a false alarm. The CLI exits 2 then.
   */
  trusted: boolean;
  /** What makes the report less than certain, as sentences: the untrusted store, no `receiver`. */
  warnings: string[];
}
