import { describeError } from '../base/describe-error.js';
import { platform } from '../base/platform/index.js';
import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { ClaimResult, ClaimWithOrderResult, OrderClaimResult } from './dedupe-store.js';
import type { Delivery, StaleHandler } from './delivery.js';
import type { ErrorHooks } from './error-hooks.js';
import type { HandlerRun } from './handler-run.js';
import { observeStore as call } from './instrumentation.js';
import { claimVersion } from './order.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import { DUPLICATE, type ReceiverResponse, refusal, STALE } from './responses.js';

type Slot = { key: string; version: string };

/**
 * The claim step of the walk: the event's dedupe claim and, with `order`, its object's. One store call
 * where the store can take both at once (`claimWithOrder`), else `claim` and then `claimOrder`.
 */
export class ClaimStep {
  readonly #retryAfter: Readonly<Record<string, string>>;
  #ready: Promise<void> | undefined;
  #initialized = false;

  constructor(
    readonly opts: ResolvedOptions,
    readonly run: HandlerRun,
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
    readonly staleHooks: readonly StaleHandler[],
  ) {
    this.#retryAfter = { 'retry-after': String(Math.min(60, Math.ceil(opts.leaseMs / 1000))) };
  }

  /** Undefined once `d` holds its claims (or runs without them); otherwise the answer that ends it. */
  async claim(d: Delivery): Promise<ReceiverResponse | undefined> {
    const { store, dispatch } = this.opts;
    try {
      if (!this.#initialized) await this.#init();
    } catch (error) {
      return this.#storeFailed(d, error, 'dedupe');
    }
    const slot = this.#slot(d.event);
    if (slot === undefined) return this.#claimEvent(d);
    // A queue's worker orders the job with its own store calls (JobOrder): the job carries the slot.
    if (dispatch !== undefined) {
      d.queuedOrder = slot;
      return this.#claimEvent(d);
    }
    if (typeof store.claimWithOrder === 'function') return this.#claimBoth(d, slot);
    return (await this.#claimEvent(d)) ?? (await this.#claimObject(d, slot));
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
  #slot(event: AnyWebhookEvent): Slot | undefined {
    const { order } = this.opts;
    if (order === undefined) return undefined;
    let slot: ReturnType<typeof order>;
    try {
      slot = order(event);
    } catch (error) {
      slot = { invalid: `the order function threw for ${event.id}: ${describeError(error)}` };
    }
    if (slot === undefined || !('invalid' in slot)) return slot;
    const detail = slot.invalid;
    this.refusals.sampled.warn('unordered events', () => `${detail}; handled without ordering.`);
    return undefined;
  }

  async #claimEvent(d: Delivery): Promise<ReceiverResponse | undefined> {
    const { store, leaseMs } = this.opts;
    const token = ownerToken();
    let claimed: ClaimResult;
    try {
      claimed = await call(d.obs, 'claim', () => store.claim(d.event.id, token, leaseMs));
    } catch (error) {
      return this.#storeFailed(d, error, 'dedupe');
    }
    if (claimed === 'claimed') d.token = token;
    return this.#answer(d, claimed);
  }

  /** One round trip: a failure leaves nothing held (the store undoes a late claim itself). */
  async #claimBoth(d: Delivery, slot: Slot): Promise<ReceiverResponse | undefined> {
    const { store, leaseMs, retainMs } = this.opts;
    const token = ownerToken();
    const object = { key: slot.key, version: claimVersion(slot.version), retainMs };
    let result: ClaimWithOrderResult;
    try {
      result = await call(d.obs, 'claimWithOrder', () =>
        store.claimWithOrder!(d.event.id, token, leaseMs, object),
      );
    } catch (error) {
      return this.#storeFailed(d, error, 'dedupe');
    }
    if (result === 'claimed') {
      d.token = token;
      d.order = { key: slot.key, version: slot.version, token };
    }
    return this.#answer(d, result, slot.key);
  }

  /** A third-party store's second call: the event is held; the object decides whether it runs. */
  async #claimObject(d: Delivery, slot: Slot): Promise<ReceiverResponse | undefined> {
    const { store, leaseMs, retainMs } = this.opts;
    const token = d.token;
    // No order without a claim: the store was down and 'process' let the event by.
    if (token === undefined) return undefined;
    const { key, version } = slot;
    let result: OrderClaimResult;
    try {
      result = await call(d.obs, 'claimOrder', () =>
        store.claimOrder!(key, claimVersion(version), token, leaseMs),
      );
    } catch (error) {
      const answer = this.#storeFailed(d, error, 'ordering');
      if (answer !== undefined) void this.run.release(d);
      return answer;
    }
    if (result === 'claimed') {
      d.order = { key, version, token };
      return undefined;
    }
    // Off the answer's path: a stale event is done for good (a redelivery is a duplicate); a busy
    // object's event is given back for the service's retry.
    if (result === 'stale') void this.run.record(d, true, retainMs);
    else void this.run.release(d);
    return this.#answer(d, result === 'stale' ? 'stale' : 'object-in-flight', key);
  }

  #answer(d: Delivery, result: ClaimWithOrderResult, key = ''): ReceiverResponse | undefined {
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
  #storeFailed(d: Delivery, error: unknown, what: 'dedupe' | 'ordering'): ReceiverResponse | undefined {
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
