import { describeError } from '../base/describe-error.js';
import { platform } from '../base/platform/index.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import { tenantKey } from '../verify/tenant-secrets.js';
import {
  type ClaimResult,
  type ClaimWithOrderResult,
  type DedupeStore,
  type OrderClaimResult,
  type OrderStore,
  supportsOrder,
} from './dedupe-store.js';
import type { Claimed, Held, Routed, StaleHandler } from './delivery.js';
import type { ErrorHooks } from './error-hooks.js';
import type { HandlerRun } from './handler-run.js';
import { observeStore as call } from './instrumentation.js';
import { claimVersion } from './order.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import { DUPLICATE, type ReceiverResponse, refusal, STALE } from './responses.js';

type ClaimWithOrder = NonNullable<DedupeStore['claimWithOrder']>;
type Slot = { key: string; version: string };
/** A claim's outcome inside the step: what is held, the answer that ends the delivery, or undefined to go on unheld. */
type Hold = Held | ReceiverResponse | undefined;

/**
 * The claim step of the walk: the event's dedupe claim and, with `order`, its object's. One store call
 * where the store can take both at once (`claimWithOrder`), else `claim` and then `claimOrder`.
 */
export class ClaimStep {
  readonly #retryAfter: Readonly<Record<string, string>>;
  /** With `order`: the store, with its object calls (the options check let `order` on only then). */
  readonly #orders: OrderStore | undefined;
  #ready: Promise<void> | undefined;
  #initialized = false;

  constructor(
    readonly opts: ResolvedOptions,
    readonly run: HandlerRun,
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
    readonly staleHooks: readonly StaleHandler[],
  ) {
    this.#orders = opts.order !== undefined && supportsOrder(opts.store) ? opts.store : undefined;
    this.#retryAfter = { 'retry-after': String(Math.min(60, Math.ceil(opts.leaseMs / 1000))) };
  }

  /** `d` with what it holds (or runs without, the store being down), or the answer that ends it. */
  async claim(d: Routed): Promise<Claimed | ReceiverResponse> {
    const orders = this.#orders;
    let queuedOrder: Slot | undefined;
    let held: Hold;
    try {
      if (!this.#initialized) await this.#init();
      const slot = orders === undefined ? undefined : this.#slot(d.event, d.tenant);
      if (slot === undefined || orders === undefined) held = await this.#claimEvent(d);
      else if (this.opts.dispatch === undefined) held = await this.#claimOrdered(d, slot, orders);
      else {
        // A queue's worker orders the job with its own store calls (JobOrder): the job carries the slot.
        queuedOrder = slot;
        held = await this.#claimEvent(d);
      }
    } catch (error) {
      held = this.#storeFailed(d, error, 'dedupe');
    }
    if (held !== undefined && 'status' in held) return held;
    const { event, key, tenant, handlers, obs } = d;
    return { event, key, tenant, handlers, obs, held, queuedOrder };
  }

  /** One store call where the store can take both claims at once, else `claim` and then `claimOrder`. */
  async #claimOrdered(d: Routed, slot: Slot, store: OrderStore): Promise<Hold> {
    if (typeof store.claimWithOrder === 'function') return this.#claimBoth(d, slot, store.claimWithOrder);
    const held = await this.#claimEvent(d);
    if (held === undefined || 'status' in held) return held;
    return this.#claimObject(d, held.token, slot, store);
  }

  /** The store's `init`, once; a failed one is tried again on the next delivery. */
  #init(): Promise<void> {
    this.#ready ??= Promise.resolve(this.opts.store.init?.()).then(
      () => {
        this.#initialized = true;
      },
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  /** The event's object and version under `order`; undefined when it is not ordered. */
  #slot(event: AnyWebhookEvent, tenant: string | undefined): Slot | undefined {
    const { order } = this.opts;
    if (order === undefined) return undefined;
    let slot: ReturnType<typeof order>;
    try {
      slot = order(event);
    } catch (error) {
      slot = { invalid: `the order function threw for ${event.id}: ${describeError(error)}` };
    }
    if (slot === undefined) return undefined;
    // Two tenants' messages are two objects, as their events are two events (tenantKey).
    if (!('invalid' in slot))
      return tenant === undefined ? slot : { key: tenantKey(tenant, slot.key), version: slot.version };
    const detail = slot.invalid;
    this.refusals.sampled.warn('unordered events', () => `${detail}; handled without ordering.`);
    return undefined;
  }

  async #claimEvent(d: Routed): Promise<Hold> {
    const { store, leaseMs } = this.opts;
    const { obs, key } = d;
    const token = ownerToken();
    let claimed: ClaimResult;
    try {
      // Without an observer, the store's call itself (the common case, on every delivery's path).
      claimed = await (obs === undefined
        ? store.claim(key, token, leaseMs)
        : obs.store('claim', () => store.claim(key, token, leaseMs)));
    } catch (error) {
      return this.#storeFailed(d, error, 'dedupe');
    }
    return claimed === 'claimed' ? { token, order: undefined } : this.#answer(d, claimed);
  }

  /** One round trip: a failure leaves nothing held (the store undoes a late claim itself). */
  async #claimBoth(d: Routed, slot: Slot, claimWithOrder: ClaimWithOrder): Promise<Hold> {
    const { store, leaseMs, retainMs } = this.opts;
    const token = ownerToken();
    const object = { key: slot.key, version: claimVersion(slot.version), retainMs };
    let result: ClaimWithOrderResult;
    try {
      result = await call(d.obs, 'claimWithOrder', () =>
        claimWithOrder.call(store, d.key, token, leaseMs, object),
      );
    } catch (error) {
      return this.#storeFailed(d, error, 'dedupe');
    }
    if (result !== 'claimed') return this.#answer(d, result, slot.key);
    return { token, order: { key: slot.key, version: slot.version, token } };
  }

  /** A third-party store's second call: the event is held; the object decides whether it runs. */
  async #claimObject(d: Routed, token: string, slot: Slot, store: OrderStore): Promise<Hold> {
    const { leaseMs, retainMs } = this.opts;
    const { key, version } = slot;
    let result: OrderClaimResult;
    try {
      result = await call(d.obs, 'claimOrder', () =>
        store.claimOrder(key, claimVersion(version), token, leaseMs),
      );
    } catch (error) {
      const answer = this.#storeFailed(d, error, 'ordering');
      // Without ordering ('process'), the event's own claim stays held.
      if (answer === undefined) return { token, order: undefined };
      void this.run.release(d, token);
      return answer;
    }
    if (result === 'claimed') return { token, order: { key, version, token } };
    // Off the answer's path: a stale event is done for good (a redelivery is a duplicate); a busy
    // object's event is given back for the service's retry.
    if (result === 'stale') void this.run.record(d, token, true, retainMs);
    else void this.run.release(d, token);
    return this.#answer(d, result === 'stale' ? 'stale' : 'object-in-flight', key);
  }

  #answer(d: Routed, result: ClaimWithOrderResult, key = ''): ReceiverResponse | undefined {
    const { event } = d;
    switch (result) {
      case 'claimed':
        return undefined;
      case 'completed':
        return DUPLICATE;
      case 'stale':
        this.refusals.sampled.warn(
          'stale events',
          () =>
            `${event.id} (${event.type}) is older than the newest event completed for ${key}; answered stale, no handler ran.`,
        );
        this.errors.callEach('onStale', this.staleHooks, event, { key });
        return STALE;
      case 'in-flight':
        return this.#busy(`Event ${event.id} is being processed right now; retry later.`);
      default:
        return this.#busy(
          `Another event of the same object is being processed right now (${event.id}); retry later.`,
        );
    }
  }

  #busy(message: string): ReceiverResponse {
    return this.refusals.refuse(refusal('in_flight', message, this.#retryAfter));
  }

  /** The store failed: 503 so the service retries ('reject'), or on without it ('process'). */
  #storeFailed(d: Routed, error: unknown, what: 'dedupe' | 'ordering'): ReceiverResponse | undefined {
    const { logger, onStoreError } = this.opts;
    if (onStoreError === 'process') {
      logger.warn(
        `sms-webhooks: dedupe store unavailable, processing ${d.event.id} without ${what}: ${describeError(error)}`,
      );
      return undefined;
    }
    logger.error(
      `sms-webhooks: dedupe store unavailable, answering 503 for ${d.event.id}: ${describeError(error)}`,
    );
    return this.refusals.refuse(
      refusal('store_unavailable', 'The dedupe store is unavailable; retry later.'),
    );
  }
}

// Unique across instances (a random prefix per process) and within one (a counter). The prefix is drawn on
// first use: Workers refuse random values at load.
let prefix: string | undefined;
let counter = 0;

export function ownerToken(): string {
  prefix ??= platform.randomHex(16);
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}:${counter.toString(36)}`;
}
