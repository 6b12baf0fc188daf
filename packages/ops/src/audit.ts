import { type Client, deliveryOutcome, type WebhookDelivery } from '@sms-webhooks/client';
import type { DedupeStore, StoredEvent } from '@sms-webhooks/core/store';
import type { HandledTypes } from './coverage.js';
import { OpsError, optionMistake, positiveMs } from './errors.js';

/**
 * - `missed`: the service gave up (no further attempt, no 2xx) and the store never completed it;
 * - `retrying`: not delivered yet; the service tries again at `nextAttemptAt`;
 * - `unfinished`: answered 2xx, but the store has no completion (a crash after a fast 200, a handler that
 *   never succeeded, a claim still held);
 * - `fine`: delivered and completed, completed by a later run, or a type the receiver ignores.
 */
export type AuditCategory = 'missed' | 'retrying' | 'unfinished' | 'fine';

export const AUDIT_CATEGORIES: readonly AuditCategory[] = ['missed', 'retrying', 'unfinished', 'fine'];

/**
 * What a queue's failed set holds for an event (`findFailed` of @sms-webhooks/bullmq or /pg-boss,
 * `failedFinder` of /rabbitmq).
 */
export interface FailedJobInfo {
  attempts: number;
  error: string | undefined;
  failedAt: Date | undefined;
}

export interface AuditedEvent {
  eventId: string;
  eventType: string;
  category: AuditCategory;
  /** The highest attempt number among the event's delivery records. */
  attempts: number;
  lastStatusCode: number | null;
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
}

export interface AuditReport {
  webhookId: string;
  /** ISO time the audit ran. */
  checkedAt: string;
  /**
   * The records it covered: the service lists recent records only (how many is not documented), so
   * anything older than `from` was not checked. `leftOut` counts records older than `retainMs`, whose
   * store records may have expired, and `tests` the `webhook.test` deliveries of the test operation.
   */
  window: { from: string | null; to: string | null; records: number; leftOut: number; tests: number };
  counts: Record<AuditCategory, number>;
  /** Worst first: missed, unfinished, retrying, fine; oldest first within each. */
  events: AuditedEvent[];
  /** No event missed or unfinished. */
  ok: boolean;
}

export interface AuditOptions {
  client: Pick<Client, 'listDeliveries'>;
  webhookId: string;
  /** The receiver's dedupe store (Memory, Redis, PostgreSQL, or yours with `inspect`). */
  store: DedupeStore;
  /**
   * Put before each event id to make the store key, as the receiver does. Default '' (the receiver claims
   * the bare event id; a RedisStore's own `prefix` is applied inside the store).
   */
  keyPrefix?: string;
  /** The receiver (or what it handles): events of types it does not handle are answered 200 and never stored. */
  receiver?: { handledTypes(): HandledTypes };
  /** Reads a queue's failed set for an event: `(id) => findFailed(queue, id)`. */
  findFailed?: (eventId: string) => Promise<FailedJobInfo | undefined>;
  /** How long the receiver keeps completed records (its `retainMs`). Older deliveries are left out. Default 24 h. */
  retainMs?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const ORDER: Record<AuditCategory, number> = { missed: 0, unfinished: 1, retrying: 2, fine: 3 };

function checkOptions(options: AuditOptions) {
  if (typeof options !== 'object' || options === null) {
    throw optionMistake('auditWebhook({ client, webhookId, store }) takes an options object.');
  }
  const { client, webhookId, store, keyPrefix = '', receiver, findFailed, now = Date.now } = options;
  if (typeof client?.listDeliveries !== 'function') {
    throw optionMistake('`client` must be a client from @sms-webhooks/client: createClient({ apiKey }).');
  }
  if (typeof webhookId !== 'string' || !webhookId.startsWith('wh_')) {
    throw optionMistake(`\`webhookId\` must be the webhook's wh_… id, got ${JSON.stringify(webhookId)}.`);
  }
  if (typeof store?.claim !== 'function') {
    throw optionMistake(
      "`store` must be the receiver's dedupe store (MemoryStore, RedisStore, PostgresStore).",
    );
  }
  if (typeof store.inspect !== 'function') {
    throw new OpsError(
      'ERR_SMS_OPS_NO_INSPECT',
      'the store has no inspect(key), so the audit cannot read what it holds. MemoryStore, RedisStore and PostgresStore have it; add it to your store (runDedupeStoreContract checks it).',
    );
  }
  if (typeof keyPrefix !== 'string') throw optionMistake('`keyPrefix` must be a string.');
  if (receiver !== undefined && typeof receiver?.handledTypes !== 'function') {
    throw optionMistake('`receiver` must be the receiver (createReceiver), which has handledTypes().');
  }
  if (findFailed !== undefined && typeof findFailed !== 'function') {
    throw optionMistake('`findFailed` must be a function: (eventId) => findFailed(queue, eventId).');
  }
  if (typeof now !== 'function') throw optionMistake('`now` must be a function returning epoch ms.');
  const retainMs = positiveMs('retainMs', options.retainMs, DAY_MS);
  return { client, webhookId, store, keyPrefix, receiver, findFailed, now, retainMs };
}

/** The records of one event (a redelivery adds one), folded into what the service did overall. */
function fold(records: WebhookDelivery[]) {
  const byTime = [...records].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const last = byTime[byTime.length - 1]!;
  const delivered = byTime.find((r) => r.delivered_at !== null);
  const pending = byTime.find((r) => ['retrying', 'in_progress'].includes(deliveryOutcome(r)));
  return {
    eventType: last.event_type,
    // A redelivery's record continues the attempt count ("a repeat has a higher number").
    attempts: Math.max(...byTime.map((r) => r.attempts)),
    lastStatusCode: last.last_status_code,
    lastError: last.last_error,
    deliveredAt: delivered?.delivered_at ?? null,
    nextAttemptAt: pending?.next_attempt_at ?? null,
    pending: pending !== undefined,
    createdAt: byTime[0]!.created_at,
  };
}

/**
 * Joins the service's delivery records of one webhook with what the receiver's store knows of each
 * event, and sorts every event into missed, retrying, unfinished or fine. Read-only on both sides.
 */
export async function auditWebhook(options: AuditOptions): Promise<AuditReport> {
  const o = checkOptions(options);
  const checkedAt = o.now();
  const { data } = await o.client.listDeliveries(o.webhookId);
  const records = Array.isArray(data) ? data : [];
  const oldest = checkedAt - o.retainMs;
  let leftOut = 0;
  let tests = 0;
  const byEvent = new Map<string, WebhookDelivery[]>();
  for (const record of records) {
    if (record.test || record.event_type === 'webhook.test') {
      tests++;
      continue;
    }
    if (Date.parse(record.created_at) < oldest) {
      leftOut++;
      continue;
    }
    const list = byEvent.get(record.event_id) ?? [];
    list.push(record);
    byEvent.set(record.event_id, list);
  }
  const handled = o.receiver?.handledTypes();
  const events = await Promise.all(
    [...byEvent].map(async ([eventId, list]): Promise<AuditedEvent & { createdAt: string }> => {
      const f = fold(list);
      const ignored = handled !== undefined && !handled.any && !handled.types.includes(f.eventType);
      const seen = ignored ? undefined : await o.store.inspect!(o.keyPrefix + eventId);
      const stored = seen?.state ?? 'none';
      const category: AuditCategory =
        ignored || stored === 'completed'
          ? 'fine'
          : f.deliveredAt !== null
            ? 'unfinished'
            : f.pending
              ? 'retrying'
              : 'missed';
      const event: AuditedEvent & { createdAt: string } = {
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
        createdAt: f.createdAt,
      };
      if (o.findFailed && (category === 'unfinished' || category === 'missed')) {
        const failed = await o.findFailed(eventId);
        if (failed)
          event.failedJob = { attempts: failed.attempts, error: failed.error, failedAt: failed.failedAt };
      }
      return event;
    }),
  );
  events.sort((a, b) => ORDER[a.category] - ORDER[b.category] || a.createdAt.localeCompare(b.createdAt));
  const counts: Record<AuditCategory, number> = { missed: 0, retrying: 0, unfinished: 0, fine: 0 };
  for (const e of events) counts[e.category]++;
  const covered = records
    .filter((r) => !(r.test || r.event_type === 'webhook.test') && Date.parse(r.created_at) >= oldest)
    .map((r) => r.created_at)
    .sort();
  return {
    webhookId: o.webhookId,
    checkedAt: new Date(checkedAt).toISOString(),
    window: {
      from: covered[0] ?? null,
      to: covered[covered.length - 1] ?? null,
      records: covered.length,
      leftOut,
      tests,
    },
    counts,
    events: events.map(({ createdAt: _, ...e }) => e),
    ok: counts.missed === 0 && counts.unfinished === 0,
  };
}
