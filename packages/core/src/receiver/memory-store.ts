import { positiveOption } from '@sms-webhooks/internal';
import type { Logger } from '../base/logger.js';
import { Fifo } from './completion-ring.js';
import type {
  ClaimResult,
  ClaimWithOrderResult,
  DedupeStore,
  KeptDelivery,
  ObjectSlot,
  OrderClaimResult,
  StoredEvent,
} from './dedupe-store.js';
import { MemoryKept } from './memory-kept.js';
import { MemoryOrder } from './memory-order.js';

/** Options of {@link MemoryStore}: how many records it keeps, and where it logs. */
export interface MemoryStoreOptions {
  /**
   * Completed records kept at most; the oldest goes first when full, even before its `retainMs`. Default
   * 100,000: at a sustained 1.9 events/s and more, records are forgotten inside the service's retry schedule.
   */
  maxEntries?: number;
  /** Where the one warning about a record evicted inside the retry schedule goes. Default `console`. */
  logger?: Logger;
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number;
}

/** The service's retry schedule, first attempt to last: 1 + 5 + 30 + 120 + 720 min = 14 h 36 min. */
const RETRY_SCHEDULE_MS = (1 + 5 + 30 + 120 + 720) * 60_000;

interface Claim {
  token: string;
  expires: number;
}

/**
 * A per-process store: right for one instance, wrong for several (use `@sms-webhooks/redis`).
 * One Map holds every key: a number is a completed record (its expiry), an object a live claim, so a
 * delivery costs one lookup and one insert to claim and one lookup and one overwrite to complete. A
 * queue of completed records in insertion order makes eviction of the oldest and the expiry sweep O(1);
 * a record costs little more than its key. No timer: nothing keeps the process alive and expired
 * records are dropped as new ones arrive.
 */
export class MemoryStore implements DedupeStore {
  readonly localKeys = true;
  /** Records kept at most; past it the oldest completed ones go first. */
  readonly maxEntries: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #epoch: number;
  readonly #records = new Map<string, number | Claim>();
  #kept: MemoryKept | undefined;
  #completed = 0;
  #claims = 0;
  #warnedEarlyEviction = false;
  // Not the Map's own order: V8 leaves deleted entries as holes that `keys().next()` walks past, so
  // taking the oldest from the Map's front costs O(holes) and a full store slows to a crawl.
  readonly #order = new Fifo();

  constructor(options: MemoryStoreOptions = {}) {
    const { logger = console, now = Date.now } = options;
    const maxEntries = positiveOption('maxEntries', options.maxEntries, 100_000, {
      owner: 'sms-webhooks: MemoryStore',
      integer: true,
    });
    this.maxEntries = maxEntries;
    this.#logger = logger;
    this.#now = now;
    this.#epoch = now();
  }

  /** The object versions of the receiver's `order` option, made on first use. */
  #objects: MemoryOrder | undefined;

  /** Completed records currently kept (expired ones may linger until swept). */
  get size(): number {
    return this.#completed;
  }

  async claim(key: string, token: string, leaseMs: number): Promise<ClaimResult> {
    const now = this.#now() - this.#epoch;
    const record = this.#records.get(key);
    const held = heldAs(record, now);
    if (held !== undefined) return held;
    this.#take(key, record, token, leaseMs, now);
    return 'claimed';
  }

  /** `claim` and `claimOrder` in one step (see DedupeStore.claimWithOrder). */
  async claimWithOrder(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult> {
    const now = this.#now() - this.#epoch;
    const record = this.#records.get(key);
    const held = heldAs(record, now);
    if (held !== undefined) return held;
    this.#objects ??= new MemoryOrder(this.maxEntries);
    const result = this.#objects.claim(object.key, object.version, token, leaseMs, now);
    if (result === 'in-flight') return 'object-in-flight';
    this.#take(key, record, token, leaseMs, now);
    if (result === 'claimed') return 'claimed';
    this.#complete(key, token, object.retainMs, now);
    return 'stale';
  }

  /** `completeOrder` and `complete` in one step (see DedupeStore.completeWithOrder). */
  async completeWithOrder(
    key: string,
    token: string,
    retainMs: number,
    object: { key: string; version: string },
  ): Promise<boolean> {
    const now = this.#now() - this.#epoch;
    this.#objects ??= new MemoryOrder(this.maxEntries);
    this.#objects.complete(object.key, object.version, token, retainMs, now);
    return this.#complete(key, token, retainMs, now);
  }

  /** Holds `key` for `token`; `record` is what the Map held for it (expired, or nothing). */
  #take(key: string, record: number | Claim | undefined, token: string, leaseMs: number, now: number): void {
    if (typeof record === 'number') {
      this.#completed--; // expired: overwritten below, its queue entry becomes a leftover
    } else if (record !== undefined) {
      this.#claims--; // a dead claim, replaced below
    }
    if (typeof record !== 'object' && this.#claims >= this.maxEntries) this.#sweepClaims(now);
    this.#records.set(key, { token, expires: now + leaseMs });
    this.#claims++;
  }

  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    return this.#complete(key, token, retainMs, this.#now() - this.#epoch);
  }

  #complete(key: string, token: string, retainMs: number, now: number): boolean {
    if (!this.#takeClaim(key, token, now, false)) return false;
    this.#dropOldest(now);
    const expires = now + retainMs;
    this.#records.set(key, expires);
    this.#completed++;
    this.#order.push(key, expires, now);
    return true;
  }

  async release(key: string, token: string): Promise<boolean> {
    return this.#takeClaim(key, token, this.#now() - this.#epoch, true);
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const now = this.#now() - this.#epoch;
    const held = this.#records.get(key);
    if (typeof held !== 'object' || held.token !== token || held.expires <= now) return false;
    held.expires = now + leaseMs;
    return true;
  }

  async claimOrder(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult> {
    this.#objects ??= new MemoryOrder(this.maxEntries);
    return this.#objects.claim(key, version, token, leaseMs, this.#now() - this.#epoch);
  }

  async completeOrder(key: string, version: string, token: string, retainMs: number): Promise<boolean> {
    this.#objects ??= new MemoryOrder(this.maxEntries);
    return this.#objects.complete(key, version, token, retainMs, this.#now() - this.#epoch);
  }

  async releaseOrder(key: string, token: string): Promise<boolean> {
    return this.#objects?.release(key, token, this.#now() - this.#epoch) ?? false;
  }

  async renewOrder(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.#objects?.renew(key, token, leaseMs, this.#now() - this.#epoch) ?? false;
  }

  /** Ends `token`'s claim on `key`; true when it was still live. Deletes the key unless `complete` reuses it. */
  #takeClaim(key: string, token: string, now: number, release: boolean): boolean {
    const held = this.#records.get(key);
    if (typeof held !== 'object' || held.token !== token) return false;
    this.#claims--;
    // A claim whose lease ran out is gone, as in Redis: the late owner changes nothing.
    const live = held.expires > now;
    if (release || !live) this.#records.delete(key);
    return live;
  }

  /**
   * A queued record is live while the Map still holds it with the same expiry; otherwise (expired and
   * claimed again, or completed again since) it is a leftover and skipping it frees nothing.
   */
  #dropOldest(now: number): void {
    const records = this.#records;
    const order = this.#order;
    if (this.#completed >= this.maxEntries) {
      // Full: the oldest goes whatever its expiry (one Map lookup per complete, the common case).
      while (this.#completed >= this.maxEntries) {
        const key = order.headKey();
        const expires = order.headExpires();
        if (records.get(key) === expires) {
          if (!this.#warnedEarlyEviction && expires > now) this.#warnIfEarly(key, now);
          records.delete(key);
          this.#completed--;
        }
        order.shift();
      }
      return;
    }
    // At most two expired or leftover records per call: they still go faster than they come, and a
    // burst of expiries never lands on one request.
    for (let i = 0; i < 2 && order.size > 0; i++) {
      const key = order.headKey();
      const expires = order.headExpires();
      if (records.get(key) === expires) {
        if (expires > now) break;
        records.delete(key);
        this.#completed--;
      }
      order.shift();
    }
  }

  /** Once per store: a live record completed inside the retry schedule is forgotten for want of room. */
  #warnIfEarly(key: string, now: number): void {
    const age = now - this.#order.headCompletedAt();
    if (age >= RETRY_SCHEDULE_MS) return;
    this.#warnedEarlyEviction = true;
    try {
      this.#logger.warn(
        `sms-webhooks: MemoryStore is full (maxEntries ${this.maxEntries}) and forgot ${key.slice(0, 80)}, ` +
          `completed ${formatAge(age)} ago. The service retries an event for up to 14 h 36 min, so a ` +
          'redelivery of a forgotten event runs its handlers again. Use RedisStore from @sms-webhooks/redis ' +
          '(records kept by time, not by count), or raise maxEntries. This is logged once.',
      );
    } catch {
      // A throwing logger must not fail the completion that made room.
    }
  }

  #sweepClaims(now: number): void {
    for (const [key, record] of this.#records) {
      if (typeof record === 'object' && record.expires <= now) {
        this.#records.delete(key);
        this.#claims--;
      }
    }
  }

  /** What the store holds for `key` (see DedupeStore.inspect); expired records read as nothing. */
  async inspect(key: string): ReturnType<NonNullable<DedupeStore['inspect']>> {
    return this.#held(key);
  }

  #held(key: string): StoredEvent | undefined {
    const record = this.#records.get(key);
    const expires = typeof record === 'number' ? record : record?.expires;
    if (expires === undefined || expires <= this.#now() - this.#epoch) return undefined;
    return {
      state: typeof record === 'number' ? 'completed' : 'in-flight',
      expiresAt: expires + this.#epoch,
    };
  }

  /** Keeps a delivery for `retainMs` (see DedupeStore.keepDelivery); the oldest goes first past `maxEntries`. */
  async keepDelivery(key: string, delivery: KeptDelivery, retainMs: number): Promise<void> {
    this.#kept ??= new MemoryKept(this.maxEntries, this.#now);
    this.#kept.keep(key, delivery, retainMs);
  }

  async keptDelivery(key: string): Promise<KeptDelivery | undefined> {
    return this.#kept?.read(key);
  }

  /** `inspect` of each key, in order (see DedupeStore.inspectMany). */
  async inspectMany(keys: readonly string[]): Promise<Array<StoredEvent | undefined>> {
    return keys.map((key) => this.#held(key));
  }
}

/** 'completed' or 'in-flight' while the Map's record for a key holds it; undefined when it is free. */
function heldAs(record: number | Claim | undefined, now: number): ClaimResult | undefined {
  if (typeof record === 'number') return record > now ? 'completed' : undefined;
  return record !== undefined && record.expires > now ? 'in-flight' : undefined;
}

function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 0) return `${Math.round(ms / 1000)} s`;
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
