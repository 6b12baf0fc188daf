import type { ClaimResult, DedupeStore } from './dedupe-store.js';

export interface MemoryStoreOptions {
  /** Completed records kept at most; the oldest goes first when full. Default 100,000. */
  maxEntries?: number;
  /** Clock in milliseconds, for tests. Default `Date.now`. */
  now?: () => number;
}

interface Claim {
  token: string;
  expires: number;
}

/**
 * A per-process store: right for one instance, wrong for several (use `@sms-webhooks/redis`).
 * Completed records (key → expiry) and live claims sit in two Maps: claims are few and short-lived, so
 * their Map stays small and hot, and the large Map of completed records is touched once per delivery
 * to insert and once to evict. A queue of completed records in insertion order makes eviction of the
 * oldest and the expiry sweep O(1); a record costs little more than its key. No timer: nothing keeps
 * the process alive and expired records are dropped as new ones arrive.
 */
export class MemoryStore implements DedupeStore {
  readonly localKeys = true;
  readonly maxEntries: number;
  readonly #now: () => number;
  // Times are kept relative to construction so they stay small integers (V8 stores those unboxed).
  readonly #epoch: number;
  readonly #done = new Map<string, number>();
  readonly #claims = new Map<string, Claim>();
  // Not the Map's own order: V8 leaves deleted entries as holes that `keys().next()` walks past, so
  // taking the oldest from the Map's front costs O(holes) and a full store slows to a crawl.
  readonly #order = new Fifo();

  constructor(options: MemoryStoreOptions = {}) {
    const { maxEntries = 100_000, now = Date.now } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError(
        `sms-webhooks: MemoryStore maxEntries must be a positive integer, got ${maxEntries}.`,
      );
    }
    this.maxEntries = maxEntries;
    this.#now = now;
    this.#epoch = now();
  }

  /** Completed records currently kept (expired ones may linger until swept). */
  get size(): number {
    return this.#done.size;
  }

  claim(key: string, token: string, leaseMs: number): ClaimResult {
    const now = this.#now() - this.#epoch;
    const done = this.#done.get(key);
    if (done !== undefined) {
      if (done > now) return 'completed';
      this.#done.delete(key); // expired: its queue entry becomes a leftover
    }
    const held = this.#claims.get(key);
    if (held !== undefined) {
      if (held.expires > now) return 'in-flight';
      // a dead claim: replaced below
    } else if (this.#claims.size >= this.maxEntries) {
      this.#sweepClaims(now);
    }
    this.#claims.set(key, { token, expires: now + leaseMs });
    return 'claimed';
  }

  complete(key: string, token: string, retainMs: number): boolean {
    const now = this.#takeClaim(key, token);
    if (now === undefined) return false;
    this.#dropOldest(now);
    const expires = now + retainMs;
    this.#done.set(key, expires);
    this.#order.push(key, expires);
    return true;
  }

  release(key: string, token: string): boolean {
    return this.#takeClaim(key, token) !== undefined;
  }

  /**
   * Ends `token`'s claim on `key`, returning the time when it was still live. A claim whose lease ran
   * out is gone, as in Redis: the late owner changes nothing.
   */
  #takeClaim(key: string, token: string): number | undefined {
    const held = this.#claims.get(key);
    if (held === undefined || held.token !== token) return undefined;
    this.#claims.delete(key);
    const now = this.#now() - this.#epoch;
    return held.expires > now ? now : undefined;
  }

  /**
   * A queued record is live while the Map still holds it with the same expiry; otherwise (expired and
   * claimed again, or completed again since) it is a leftover and skipping it frees nothing.
   */
  #dropOldest(now: number): void {
    const done = this.#done;
    const order = this.#order;
    if (done.size >= this.maxEntries) {
      // Full: the oldest goes whatever its expiry (one Map lookup per complete, the common case).
      while (done.size >= this.maxEntries) {
        const key = order.headKey();
        if (done.get(key) === order.headExpires()) done.delete(key);
        order.shift();
      }
      return;
    }
    // At most two expired or leftover records per call: they still go faster than they come, and a
    // burst of expiries never lands on one request.
    for (let i = 0; i < 2 && order.size > 0; i++) {
      const key = order.headKey();
      const expires = order.headExpires();
      if (done.get(key) === expires) {
        if (expires > now) break;
        done.delete(key);
      }
      order.shift();
    }
  }

  #sweepClaims(now: number): void {
    for (const [key, claim] of this.#claims) {
      if (claim.expires <= now) this.#claims.delete(key);
    }
  }
}

/** A growable ring of (key, expiry) pairs: push at the back, shift from the front, both O(1). */
class Fifo {
  #keys: (string | undefined)[] = new Array(16);
  #expires = new Float64Array(16);
  #head = 0;
  size = 0;

  push(key: string, expires: number): void {
    if (this.size === this.#keys.length) this.#grow();
    const at = (this.#head + this.size) & (this.#keys.length - 1);
    this.#keys[at] = key;
    this.#expires[at] = expires;
    this.size++;
  }

  headKey(): string {
    return this.#keys[this.#head] as string;
  }

  headExpires(): number {
    return this.#expires[this.#head]!;
  }

  shift(): void {
    this.#keys[this.#head] = undefined; // let the key string go
    this.#head = (this.#head + 1) & (this.#keys.length - 1);
    this.size--;
  }

  #grow(): void {
    const capacity = this.#keys.length * 2;
    const keys = new Array<string | undefined>(capacity);
    const expires = new Float64Array(capacity);
    for (let i = 0; i < this.size; i++) {
      const from = (this.#head + i) & (this.#keys.length - 1);
      keys[i] = this.#keys[from];
      expires[i] = this.#expires[from]!;
    }
    this.#keys = keys;
    this.#expires = expires;
    this.#head = 0;
  }
}
