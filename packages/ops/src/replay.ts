import { randomUUID } from 'node:crypto';
import type { DedupeStore, Logger, Receiver } from '@sms-webhooks/core';
import { type AdapterReceiver, LeaseKeeper } from '@sms-webhooks/core/queue';
import { type KeptDelivery, parseEvent, tenantKey } from '@sms-webhooks/core/store';
import { checkStore, optionMistake, positiveMs } from './errors.js';

/**
 * What became of one event:
 * - `replayed`: its handlers ran from the kept body and succeeded; the store records it completed;
 * - `already-finished`: the store holds its completion (a live retry, or another replay, ran it);
 * - `in-flight`: a claim holds it right now (a live delivery running, another replay, or a process that
 *   died inside its handler: its lease ends after the receiver's `leaseMs`); try again later;
 * - `not-kept`: nothing to run it from (`reason`);
 * - `failed`: its handlers failed again (`error`); the claim is given back, so it can be replayed again.
 */
export type ReplayOutcome = 'replayed' | 'already-finished' | 'in-flight' | 'not-kept' | 'failed';

/** One event's result from {@link replayEvents}. */
export interface ReplayedEvent {
  /** The event's id, as asked for. */
  eventId: string;
  /** Its type, from the kept body; null when nothing was kept. */
  eventType: string | null;
  /** What happened; see {@link ReplayOutcome}. */
  outcome: ReplayOutcome;
  /**
   * With `not-kept`: `too-large` (over `keepDeliveries.maxBytes`: only its record was kept), or
   * `not-found` (never verified by the receiver, kept by an app without `keepDeliveries`, of a type left
   * out of it, or past its retention).
   */
  reason?: 'too-large' | 'not-found';
  /** With `failed`: the handler's error, as its message says. */
  error?: string;
  /** The attempt the kept body came with, and when it arrived (ISO). */
  attempt?: number | undefined;
  /** When the kept body arrived (ISO). */
  receivedAt?: string;
}

/** What {@link replayEvents} runs again, and through which receiver and store. */
export interface ReplayOptions {
  /** The receiver's dedupe store, where `keepDeliveries` kept the bodies. */
  store: DedupeStore;
  /** The app's receiver (its handlers run): `createReceiver(…)` as the app builds it. */
  receiver: Receiver;
  /** The events to run again (`evt_…`), each once. */
  eventIds: readonly string[];
  /** The tenant, when the receiver's `secret` is a function: keys are `tenantKey(tenant, id)`. */
  tenant?: string;
  /** Put before each event id to make the store key, as the audit's `keyPrefix`. Default ''. */
  keyPrefix?: string;
  /** The claim's lease while the handlers run (renewed every third of it), as the receiver's `leaseMs`. Default 5 min. */
  leaseMs?: number;
  /** How long the completion is kept, as the receiver's `retainMs`. Default 24 h. */
  retainMs?: number;
  /** Each event's result as it comes. */
  onEvent?(result: ReplayedEvent): void;
  /** Where the handlers' failures and the lease's problems are logged, as the receiver's `logger`. Default `console`. */
  logger?: Logger;
}

/**
 * Runs events again through the app's handlers from the bodies the receiver kept (`keepDeliveries`),
 * each under the same claim a live delivery takes: an event already completed is not run, two replays at
 * once (or a replay and a live retry) run it once, and a failure gives the claim back. One event at a
 * time, in the order given. Never prints or returns a body.
 */
export async function replayEvents(options: ReplayOptions): Promise<ReplayedEvent[]> {
  const o = checkOptions(options);
  const leases = new LeaseKeeper(o.store, o.leaseMs, o.logger);
  const out: ReplayedEvent[] = [];
  for (const eventId of [...new Set(o.eventIds)]) {
    const result = await replayOne(o, leases, eventId);
    o.onEvent?.(result);
    out.push(result);
  }
  return out;
}

type Checked = ReturnType<typeof checkOptions>;

function checkOptions(options: ReplayOptions) {
  if (typeof options !== 'object' || options === null) {
    throw optionMistake('replayEvents({ store, receiver, eventIds }) takes an options object.');
  }
  const { store, receiver, eventIds, tenant, keyPrefix = '', onEvent, logger = console } = options;
  checkStore(
    store,
    'keptDelivery',
    'ERR_SMS_OPS_NO_KEPT',
    "the store has no keptDelivery(key), so there is nothing to replay from. MemoryStore, RedisStore and PostgresStore keep deliveries with the receiver's `keepDeliveries: true`.",
  );
  if (typeof (receiver as Partial<AdapterReceiver> | undefined)?.runHandlers !== 'function') {
    throw optionMistake(
      "`receiver` must be the app's receiver (createReceiver), whose handlers run the events.",
    );
  }
  if (!Array.isArray(eventIds) || eventIds.some((id) => typeof id !== 'string' || id === '')) {
    throw optionMistake(
      `\`eventIds\` must be a list of event ids (evt_…), got ${JSON.stringify(eventIds)?.slice(0, 200)}.`,
    );
  }
  if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
    throw optionMistake(
      `\`tenant\` must be the tenant's name as the receiver gets it, got ${JSON.stringify(tenant)}.`,
    );
  }
  if (typeof keyPrefix !== 'string') throw optionMistake('`keyPrefix` must be a string.');
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw optionMistake('`onEvent` must be a function.');
  const leaseMs = positiveMs('leaseMs', options.leaseMs, 5 * 60_000);
  const retainMs = positiveMs('retainMs', options.retainMs, 24 * 3_600_000);
  const keyOf = (id: string) => keyPrefix + (tenant === undefined ? id : tenantKey(tenant, id));
  // Every receiver createReceiver makes runs handlers for an event verified elsewhere (as a queue worker does).
  const run = receiver as AdapterReceiver;
  return { store, receiver: run, eventIds, tenant, keyOf, onEvent, logger, leaseMs, retainMs };
}

async function replayOne(o: Checked, leases: LeaseKeeper, eventId: string): Promise<ReplayedEvent> {
  const key = o.keyOf(eventId);
  const kept = await o.store.keptDelivery!(key);
  const base = (k: KeptDelivery | undefined): ReplayedEvent => ({
    eventId,
    eventType: k?.eventType ?? null,
    outcome: 'not-kept',
    ...(k ? { attempt: k.attempt, receivedAt: new Date(k.receivedAt).toISOString() } : {}),
  });
  if (kept === undefined) return { ...base(kept), reason: 'not-found' };
  if (kept.body === undefined) return { ...base(kept), reason: 'too-large' };
  // Parsed before the claim: a body that no longer parses must not take the event's claim.
  const event = parseEvent(kept.body);
  const token = `replay-${randomUUID()}`;
  const claimed = await o.store.claim(key, token, o.leaseMs);
  if (claimed === 'completed') return { ...base(kept), outcome: 'already-finished' };
  if (claimed === 'in-flight') return { ...base(kept), outcome: 'in-flight' };
  const held = leases.hold(key, token);
  try {
    await o.receiver.runHandlers(event, {
      attempt: kept.attempt,
      receivedAt: new Date(),
      claim: { key, token },
      ...(kept.tenant === undefined ? {} : { tenant: kept.tenant }),
    });
  } catch (error) {
    held?.release();
    await o.store.release(key, token).catch(() => {});
    return { ...base(kept), outcome: 'failed', error: messageOf(error) };
  }
  held?.release();
  if (!(await o.store.complete(key, token, o.retainMs))) {
    o.logger.warn(
      `@sms-webhooks/ops: ${eventId} ran, but its claim ran out before it was recorded done; raise leaseMs to the receiver's.`,
    );
  }
  return { ...base(kept), outcome: 'replayed' };
}

function messageOf(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const own = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !own.includes(cause.message) ? `${own}: ${cause.message}` : own;
}
