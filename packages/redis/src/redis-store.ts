import type { DedupeStore } from '@sms-webhooks/core';
import type {
  ClaimResult,
  ClaimWithOrderResult,
  KeptDelivery,
  ObjectSlot,
  OrderClaimResult,
  StoredEvent,
} from '@sms-webhooks/core/store';
import * as claims from './claims.js';
import { storedKey } from './event-key.js';
import { inspect, inspectMany } from './inspect.js';
import { keepDelivery, keptDelivery } from './kept-deliveries.js';
import * as orders from './order-claims.js';
import type { StoreContext } from './store-context.js';
import { DEFAULT_PREFIX, type RedisStoreOptions, storeContext } from './store-options.js';

export {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_PREFIX,
  type RedisStoreClientOptions,
  type RedisStoreCommonOptions,
  type RedisStoreOptions,
  type RedisStoreSendCommandOptions,
} from './store-options.js';

/**
 * A DedupeStore shared by every app instance that talks to the same Redis. Each operation is one
 * atomic Lua script on one key (see scripts.ts), run with EVALSHA and sent as EVAL only after NOSCRIPT.
 */
export class RedisStore implements DedupeStore {
  readonly localKeys = false;
  /** The prefix before every key, as given or {@link DEFAULT_PREFIX}. */
  readonly prefix: string;
  /** How long one store operation may take before it rejects with `ERR_SMS_REDIS_TIMEOUT`. */
  readonly commandTimeoutMs: number;
  readonly #ctx: StoreContext;

  constructor(options: RedisStoreOptions) {
    this.#ctx = storeContext(options);
    this.prefix = this.#ctx.prefix;
    this.commandTimeoutMs = this.#ctx.commandTimeoutMs;
  }

  /** The Redis key an event id is stored under. */
  keyFor(id: string): string {
    return storedKey(this.prefix, id);
  }

  async claim(key: string, token: string, leaseMs: number): Promise<ClaimResult> {
    return claims.claim(this.#ctx, key, token, leaseMs);
  }

  async complete(key: string, token: string, retainMs: number): Promise<boolean> {
    return claims.complete(this.#ctx, key, token, retainMs);
  }

  async release(key: string, token: string): Promise<boolean> {
    return claims.release(this.#ctx, key, token);
  }

  async claimOrder(key: string, version: string, token: string, leaseMs: number): Promise<OrderClaimResult> {
    return orders.claimOrder(this.#ctx, key, version, token, leaseMs);
  }

  /**
   * `claim` and `claimOrder` in one script, one round trip (see DedupeStore.claimWithOrder). On Redis
   * Cluster the event and its object live in different slots: there it is the two calls.
   */
  async claimWithOrder(
    key: string,
    token: string,
    leaseMs: number,
    object: ObjectSlot,
  ): Promise<ClaimWithOrderResult> {
    return orders.claimWithOrder(this.#ctx, this, key, token, leaseMs, object);
  }

  /** `completeOrder` and `complete` in one script (see DedupeStore.completeWithOrder); two on a cluster. */
  async completeWithOrder(
    key: string,
    token: string,
    retainMs: number,
    object: { key: string; version: string },
  ): Promise<boolean> {
    return orders.completeWithOrder(this.#ctx, key, token, retainMs, object);
  }

  async completeOrder(key: string, version: string, token: string, retainMs: number): Promise<boolean> {
    return orders.completeOrder(this.#ctx, { key, version }, token, retainMs);
  }

  async releaseOrder(key: string, token: string): Promise<boolean> {
    return orders.releaseOrder(this.#ctx, key, token);
  }

  async renewOrder(key: string, token: string, leaseMs: number): Promise<boolean> {
    return orders.renewOrder(this.#ctx, key, token, leaseMs);
  }

  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return claims.renew(this.#ctx, key, token, leaseMs);
  }

  /** What Redis holds for the event id `key` (see DedupeStore.inspect), its expiry on Redis's clock. */
  async inspect(key: string): Promise<StoredEvent | undefined> {
    return inspect(this.#ctx, key);
  }

  /**
   * Keeps a delivery under `<prefix>kept:<id>` for `retainMs` (see DedupeStore.keepDelivery): one SET,
   * sent beside the claim's script, so the two share the round trip.
   */
  async keepDelivery(key: string, delivery: KeptDelivery, retainMs: number): Promise<void> {
    return keepDelivery(this.#ctx, key, delivery, retainMs);
  }

  async keptDelivery(key: string): Promise<KeptDelivery | undefined> {
    return keptDelivery(this.#ctx, key);
  }

  /**
   * `inspect` of many keys, answers in the order given (see DedupeStore.inspectMany). The scripts go out
   * together, so the client writes them back to back (a pipeline, each routed to its node on a cluster),
   * and one time limit covers the batch.
   */
  async inspectMany(keys: readonly string[]): Promise<Array<StoredEvent | undefined>> {
    return inspectMany(this.#ctx, keys);
  }
}
