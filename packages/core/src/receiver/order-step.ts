import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { OrderClaimResult } from './dedupe-store.js';
import type { Delivery } from './delivery.js';
import { describeError, isPromiseLike } from './describe-error.js';
import type { ErrorHooks } from './error-hooks.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { ResolvedOptions } from './receiver-options.js';
import type { Refusals } from './refusals.js';
import { errorResponse, type ReceiverResponse, STALE, storeUnavailable } from './responses.js';
import type { StoreSteps } from './store-steps.js';

/** An event answered `stale`: older than the newest version already completed for its object. */
export type StaleHandler = (event: AnyWebhookEvent, object: { key: string }) => unknown;

/**
 * The `order` step, after the event's own claim: one atomic store call decides whether the event is
 * newer than what its object has completed (`claimed`), older (`stale`: answered 200, no handler) or
 * waits for another event of the same object (`in-flight`: 409, the service retries).
 */
export class OrderStep {
  readonly #hooks: StaleHandler[] = [];
  /** Renews object leases while handlers run, as the pipeline's own keeper does for event claims. */
  readonly leases: LeaseKeeper;

  constructor(
    readonly opts: ResolvedOptions,
    readonly store: StoreSteps,
    readonly refusals: Refusals,
    readonly errors: ErrorHooks,
    readonly retryAfter: Readonly<Record<string, string>>,
  ) {
    const { store: s, leaseMs, logger, clock } = opts;
    const renewing = { renew: (key: string, token: string, ms: number) => s.renewOrder!(key, token, ms) };
    this.leases = new LeaseKeeper(renewing as never, leaseMs, logger, clock);
  }

  onStale(hook: StaleHandler): void {
    if (typeof hook !== 'function') throw new TypeError('sms-webhooks: onStale(handler) needs a function.');
    this.#hooks.push(hook);
  }

  /** Undefined once `d` holds its object (or is not ordered); otherwise the answer that ends it. */
  claim(d: Delivery): ReceiverResponse | undefined | Promise<ReceiverResponse | undefined> {
    const token = d.token;
    if (token === undefined) return undefined; // the store was down and 'process' let it by: no order either
    let slot: ReturnType<NonNullable<ResolvedOptions['order']>>;
    try {
      slot = this.opts.order!(d.event);
    } catch (error) {
      slot = { invalid: `the order function threw for ${d.event.id}: ${describeError(error)}` };
    }
    if (slot === undefined) return undefined;
    if ('invalid' in slot) {
      const detail = slot.invalid;
      this.refusals.sampled.warn('unordered events', () => `${detail}; handled without ordering.`);
      return undefined;
    }
    const { key, version } = slot;
    const { store } = this.store;
    let answer: OrderClaimResult | Promise<OrderClaimResult>;
    try {
      answer = this.store.call(d.obs, 'claimOrder', () =>
        store.claimOrder!(key, version, token, this.opts.leaseMs),
      );
    } catch (error) {
      return this.#failed(d, error);
    }
    if (!isPromiseLike(answer)) return this.#answered(d, key, version, answer);
    return Promise.resolve(answer).then(
      (result) => this.#answered(d, key, version, result),
      (error) => this.#failed(d, error),
    );
  }

  #answered(
    d: Delivery,
    key: string,
    version: string,
    result: OrderClaimResult,
  ): ReceiverResponse | undefined {
    const { event, token } = d;
    if (result === 'claimed') {
      d.order = { key, version, token: token! };
      return undefined;
    }
    if (result === 'stale') {
      // Done for good: a redelivery of it is a duplicate. Off the answer's path (no second round trip).
      void this.store.finish(event.id, token!, true, this.opts.retainMs, d.obs);
      this.#stale(event, key);
      return STALE;
    }
    void this.store.release(event.id, token!);
    const message = `Another event of the same object is being processed right now (${event.id}); retry later.`;
    return this.refusals.refuse(errorResponse(409, 'in_flight', message, this.retryAfter));
  }

  #stale(event: AnyWebhookEvent, key: string): void {
    this.refusals.sampled.warn(
      'stale events',
      () =>
        `${event.id} (${event.type}) is older than the newest event completed for ${key}; answered stale, no handler ran.`,
    );
    this.errors.callEach('onStale', this.#hooks, event, { key });
  }

  /** The order call failed: as for a failed claim, 503 (the claim given back) or on without order. */
  #failed(d: Delivery, error: unknown): ReceiverResponse | undefined {
    const { logger, onStoreError } = this.opts;
    if (onStoreError === 'process') {
      logger.warn(
        `sms-webhooks: dedupe store unavailable, processing ${d.event.id} without ordering: ${describeError(error)}`,
      );
      return undefined;
    }
    logger.error(
      `sms-webhooks: dedupe store unavailable, answering 503 for ${d.event.id}: ${describeError(error)}`,
    );
    void this.store.release(d.event.id, d.token!);
    const message = 'The dedupe store is unavailable; retry later.';
    return this.refusals.refuse(storeUnavailable(message));
  }
}
