import type { Client, WebhookDelivery } from '@sms-webhooks/client';
import { type DedupeStore, type StoredEvent, tenantKey } from '@sms-webhooks/core/store';
import { checkRecords, fold } from './audit-records.js';
import { readStore } from './audit-store.js';
import { mapBounded } from './bounded.js';
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

/** What {@link auditWebhook} compares: the service's delivery records for the webhook, and the receiver's store. */
export interface AuditOptions {
  /** A client of @sms-webhooks/client (`createClient`); only `listDeliveries` is called. */
  client: Pick<Client, 'listDeliveries'>;
  /**
   * The webhook's `wh_…` id, or the ids of every webhook delivering to the app (during a rotation, the
   * old and the replacement): an event delivered through any of them counts as delivered.
   */
  webhookId: string | readonly string[];
  /** The receiver's dedupe store (Memory, Redis, PostgreSQL, or yours with `inspect`). */
  store: DedupeStore;
  /**
   * Put before each event id to make the store key, as the receiver does. Default '' (the receiver claims
   * the bare event id; a RedisStore's own `prefix` is applied inside the store).
   */
  keyPrefix?: string;
  /** The receiver (or what it handles): events of types it does not handle are answered 200 and never stored. */
  receiver?: {
    /** The types the receiver has handlers for; `receiver.handledTypes()`. */
    handledTypes(): HandledTypes;
  };
  /**
   * The tenant whose webhook this is, when the receiver's `secret` is a function (many tenants on one
   * route): its store keys are the tenant, URI-encoded, a slash and the event id (`tenantKey`), as the
   * receiver writes them.
   */
  tenant?: string;
  /** Called after each batch of store reads (500 keys), for progress on a long audit. */
  onProgress?(read: number, total: number): void;
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
  const { client, store, keyPrefix = '', receiver, findFailed, tenant, onProgress, now = Date.now } = options;
  if (typeof client?.listDeliveries !== 'function') {
    throw optionMistake('`client` must be a client from @sms-webhooks/client: createClient({ apiKey }).');
  }
  const webhookIds = typeof options.webhookId === 'string' ? [options.webhookId] : options.webhookId;
  if (
    !Array.isArray(webhookIds) ||
    webhookIds.length === 0 ||
    webhookIds.some((id) => typeof id !== 'string' || !id.startsWith('wh_'))
  ) {
    throw optionMistake(
      `\`webhookId\` must be the webhook's wh_… id (or a list of them), got ${JSON.stringify(options.webhookId)?.slice(0, 200)}.`,
    );
  }
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
    throw optionMistake(
      `\`tenant\` must be the tenant's name as the receiver gets it, got ${JSON.stringify(tenant)}.`,
    );
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw optionMistake('`onProgress` must be a function: (read, total) => void.');
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
  const keyOf = (eventId: string) =>
    keyPrefix + (tenant === undefined ? eventId : tenantKey(tenant, eventId));
  return {
    client,
    webhookIds: [...new Set(webhookIds as string[])],
    store,
    keyOf,
    receiver,
    findFailed,
    onProgress,
    now,
    retainMs,
  };
}

/**
 * Joins the service's delivery records of one webhook with what the receiver's store knows of each
 * event, and sorts every event into missed, retrying, unfinished or fine. Read-only on both sides.
 *
 * @example
 * ```ts
 * import { createClient } from '@sms-webhooks/client';
 * import { createReceiver } from '@sms-webhooks/core';
 * import { auditWebhook } from '@sms-webhooks/ops';
 * import { RedisStore } from '@sms-webhooks/redis';
 * import { Redis } from 'ioredis';
 *
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL!), clientType: 'ioredis' });
 * const receiver = createReceiver({ secret: process.env.SMS_WEBHOOK_SECRET!, store }).on(
 *   'message.delivered',
 *   async () => {},
 * );
 * const report = await auditWebhook({
 *   client: createClient({ apiKey: process.env.SMS_API_KEY!, baseUrl: process.env.SMS_API_BASE_URL! }),
 *   webhookId: 'wh_…',
 *   store,
 *   receiver, // what it handles: other types are answered 200 and never stored
 * });
 * if (!report.trusted) process.exitCode = 2; // the wrong store or prefix: see report.warnings
 * else if (!report.ok) process.exitCode = 1; // something missed or unfinished: report.events says what
 * ```
 */
export async function auditWebhook(options: AuditOptions): Promise<AuditReport> {
  const o = checkOptions(options);
  const checkedAt = o.now();
  const records: WebhookDelivery[] = [];
  for (const id of o.webhookIds) records.push(...checkRecords(id, (await o.client.listDeliveries(id)).data));
  const oldest = checkedAt - o.retainMs;
  let leftOut = 0;
  let tests = 0;
  const covered: WebhookDelivery[] = [];
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
    covered.push(record);
    const list = byEvent.get(record.event_id) ?? [];
    list.push(record);
    byEvent.set(record.event_id, list);
  }
  const handled = o.receiver?.handledTypes();
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
  const events = folded.map(({ eventId, f, ignored }): AuditedEvent & { createdAt: number } => {
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
  if (o.findFailed) await withFailedJobs(events, o.findFailed);
  if (o.store.keptDelivery) await withKept(events, o.store, o.keyOf);
  events.sort((a, b) => ORDER[a.category] - ORDER[b.category] || a.createdAt - b.createdAt);
  const counts: Record<AuditCategory, number> = { missed: 0, retrying: 0, unfinished: 0, fine: 0 };
  for (const e of events) counts[e.category]++;
  const times = covered.map((r) => r.created_at).sort((a, b) => Date.parse(a) - Date.parse(b));
  const warnings = warningsOf(events, handled !== undefined);
  const trusted = !warnings.some((w) => w.startsWith(UNTRUSTED));
  return {
    webhookId: o.webhookIds[0]!,
    webhookIds: o.webhookIds,
    checkedAt: new Date(checkedAt).toISOString(),
    window: {
      from: times[0] ?? null,
      to: times[times.length - 1] ?? null,
      records: covered.length,
      leftOut,
      tests,
    },
    counts,
    events: events.map(({ createdAt: _, ...e }) => e),
    ok: trusted && counts.missed === 0 && counts.unfinished === 0,
    trusted,
    warnings,
  };
}

const UNTRUSTED = 'None of the';

function warningsOf(events: AuditedEvent[], toldHandled: boolean): string[] {
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

/** Whether the store kept each unfinished or missed event's body, a few reads at a time. */
async function withKept(
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
async function withFailedJobs(
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
