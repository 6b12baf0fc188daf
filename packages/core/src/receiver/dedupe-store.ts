/**
 * - `claimed`: this caller now holds the key until `complete`, `release` or the lease runs out.
 * - `in-flight`: someone else holds a live claim (another instance is processing the event).
 * - `completed`: the event was processed and the record is still retained.
 */
export type ClaimResult = 'claimed' | 'in-flight' | 'completed';

/**
 * - `claimed`: this caller now holds the object until `completeOrder`, `releaseOrder` or the lease ends.
 * - `stale`: a version at least as new was already completed for the object.
 * - `in-flight`: another event of the same object is being handled right now.
 */
export type OrderClaimResult = 'claimed' | 'stale' | 'in-flight';

/**
 * `claimWithOrder`'s answer: the three of `claim` when the event itself is taken or done (its object is
 * then not looked at), else `stale` (the event is now recorded completed) or `object-in-flight` (nothing
 * is held: another event of the object is being handled), or `claimed` when both are held.
 */
export type ClaimWithOrderResult = ClaimResult | 'stale' | 'object-in-flight';

/** The object slot `claimWithOrder` takes along with the event: `retainMs` is for a stale event's record. */
export interface ObjectSlot {
  /** The object's key (a message id by default). */
  key: string;
  /** The event's version, encoded so that versions compare as strings (bytewise). */
  version: string;
  /** How long a stale event's record is kept, in ms. */
  retainMs: number;
}

/** True when the store implements the four order methods. */
/** A store that keeps each object's version (`order`): its four object calls are there. */
export type OrderStore = DedupeStore &
  Required<Pick<DedupeStore, 'claimOrder' | 'completeOrder' | 'releaseOrder' | 'renewOrder'>>;

export function supportsOrder(store: DedupeStore): store is OrderStore {
  return (
    typeof store.claimOrder === 'function' &&
    typeof store.completeOrder === 'function' &&
    typeof store.releaseOrder === 'function' &&
    typeof store.renewOrder === 'function'
  );
}

/**
 * Where the receiver records which events it has processed. Every operation must be atomic on its own:
 * two instances claiming the same key at once must see exactly one `claimed`.
 *
 * Keys are event ids, and those are well-formed Unicode: the receiver refuses an id with a lone surrogate
 * (400 `payload_invalid`), so a store may encode keys as UTF-8 without two ids becoming one key.
 *
 * A Postgres version, for scale: a table (key text primary key, token text, state text, expires_at
 * timestamptz); claim = INSERT … ON CONFLICT (key) DO UPDATE … WHERE expires_at < now() RETURNING, then
 * read the row's state when nothing was returned; complete/release/renew = UPDATE/DELETE … WHERE key = $1
 * AND token = $2 AND state = 'in-flight' AND expires_at > now(). Run `runDedupeStoreContract` against it.
 */
export interface DedupeStore {
  /** true when keys live only in this process: the receiver warns when that is used in production. */
  readonly localKeys: boolean;
  /** Called once by the receiver before its first claim. */
  init?(): Promise<void>;
  /** Atomically: if `key` is free (or its lease or retention ran out) hold it for `leaseMs` under `token`. */
  claim(key: string, token: string, leaseMs: number): Promise<ClaimResult>;
  /** Marks a claim done and keeps it `retainMs`; false (and no change) unless `token` holds a live claim. */
  complete(key: string, token: string, retainMs: number): Promise<boolean>;
  /** Frees a claim so a redelivery can process it; false (and no change) unless `token` holds a live claim. */
  release(key: string, token: string): Promise<boolean>;
  /**
   * Sets a live claim held by `token` to expire `leaseMs` from now (atomically: check and extend in one
   * step), so a handler that runs longer than the lease is not claimed again by a redelivery. false (and no
   * change) unless `token` holds a live claim: a completed, released, expired or foreign key stays as it is.
   * Owners call it every `leaseMs / 3` while handlers run, so two renewals in a row can be lost or late
   * before the lease runs out (the receiver does; `LeaseKeeper` from `@sms-webhooks/core/queue` does it for
   * other owners, such as the BullMQ worker). A store without it cannot protect slow handlers: its claims run
   * out after `leaseMs` whatever runs, and `runDedupeStoreContract` fails unless told `{ renew: false }`.
   */
  renew?(key: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * For the receiver's `order` option (the four order methods come together). Atomically, for the object
   * `key`: `stale` when `version` is not newer than the object's completed version; `in-flight` when
   * another token holds the object's live lease; otherwise hold the object for `leaseMs` under `token`.
   * Versions compare as strings, bytewise (the receiver encodes them so that this is their order, and
   * asks with a version just past the event's, so that an event tying with the completed one runs).
   */
  claimOrder?(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult>;
  /**
   * Atomically: the object's completed version becomes the greater of it and `version` (never goes back),
   * kept at least `retainMs`; the lease is freed if `token` holds it. true when `token` held it.
   */
  completeOrder?(key: string, version: string, token: string, retainMs: number): Promise<boolean>;
  /**
   * Optional, for one round trip before the answer: `claim(key, token, leaseMs)` and then, only when
   * that claimed, `claimOrder(object.key, object.version, token, leaseMs)`, in one atomic step. When the
   * object is stale the event's record is completed for `object.retainMs` (a redelivery is a duplicate);
   * when the object is in flight the event is not held. A store without it gets the two calls.
   */
  claimWithOrder?(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult>;
  /**
   * Optional, for one round trip after the handlers: `completeOrder(object.key, object.version, token,
   * retainMs)` and then `complete(key, token, retainMs)`, in one atomic step. Resolves as `complete`
   * does. A store without it gets the two calls.
   */
  completeWithOrder?(
    key: string,
    token: string,
    retainMs: number,
    object: { key: string; version: string },
  ): Promise<boolean>;
  /** Frees the object's lease if `token` holds it; its completed version stays. */
  releaseOrder?(key: string, token: string): Promise<boolean>;
  /** Extends the object's lease to `leaseMs` from now if `token` holds it live, as `renew` does for events. */
  renewOrder?(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Called by `receiver.close()`. Must not close connections the store was handed by the user. */
  shutdown?(): Promise<void>;
  /**
   * What the store holds for `key` right now, for audits (read-only): a live claim or a retained
   * completion, or undefined when it holds nothing live (never claimed, released, expired).
   */
  inspect?(key: string): Promise<StoredEvent | undefined>;
  /**
   * `inspect` of many keys at once, one answer per key in the order given: what an audit of a burst
   * (20,000 events) reads in a few round trips instead of one per event. Callers pass at most a few
   * hundred keys a call. Optional: without it the audit calls `inspect`, a bounded number at a time.
   */
  inspectMany?(keys: readonly string[]): Promise<Array<StoredEvent | undefined>>;
  /**
   * Keeps a verified delivery (the receiver's `keepDeliveries`) under the event's `key` for `retainMs`,
   * replacing what was kept for it: what `replay` runs the event from when the audit finds it unfinished
   * or missed. Written before the answer, beside the claim (not after it). Optional: a store without it
   * keeps nothing, and the receiver says so at start-up.
   */
  keepDelivery?(key: string, delivery: KeptDelivery, retainMs: number): Promise<void>;
  /** What `keepDelivery` kept under `key`, while its retention lasts; undefined otherwise. */
  keptDelivery?(key: string): Promise<KeptDelivery | undefined>;
}

/** A delivery as the receiver verified it, kept for a replay (`keepDeliveries`). */
export interface KeptDelivery {
  /** The event's id. */
  eventId: string;
  /** The event's type. */
  eventType: string;
  /** The delivery-attempt header of the last attempt kept; undefined when it was unreadable. */
  attempt: number | undefined;
  /** When that attempt arrived, ms since the epoch. */
  receivedAt: number;
  /** The tenant, with `secret` as a function. */
  tenant: string | undefined;
  /** The raw body's size in bytes. */
  bytes: number;
  /** The raw body (UTF-8 JSON); undefined when it was over `keepDeliveries.maxBytes` and only this record was kept. */
  body: string | undefined;
}

/** The checked shape of a kept record read back from a store: anything else is not a kept delivery. */
export function isKeptDelivery(value: unknown): value is KeptDelivery {
  const v = value as Partial<KeptDelivery> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.eventId === 'string' &&
    typeof v.eventType === 'string' &&
    (v.attempt === undefined || typeof v.attempt === 'number') &&
    typeof v.receivedAt === 'number' &&
    (v.tenant === undefined || typeof v.tenant === 'string') &&
    typeof v.bytes === 'number' &&
    (v.body === undefined || typeof v.body === 'string')
  );
}

/** One key's record as `inspect` reads it; `expiresAt` is when the lease or the retention ends. */
export interface StoredEvent {
  /** `in-flight`: claimed, its lease running; `completed`: done, kept for the retention. */
  state: 'in-flight' | 'completed';
  /** When the lease or the retention ends, in ms since the epoch. */
  expiresAt: number /* ms since epoch */;
}

export function isDedupeStore(value: unknown): value is DedupeStore {
  const s = value as Partial<DedupeStore> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.claim === 'function' &&
    typeof s.complete === 'function' &&
    typeof s.release === 'function'
  );
}
