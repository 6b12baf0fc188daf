import type { AnyWebhookEvent } from '../verify/event-types.js';
import type { Logger } from '../verify/logger.js';
import type { Awaitable, ClaimResult, DedupeStore } from './dedupe-store.js';
import { describeError, isPromiseLike } from './describe-error.js';
import type { OrderClaim } from './handler-registry.js';
import type { DeliveryObserver, StoreOperation } from './instrumentation.js';

/**
 * The receiver's calls to its dedupe store: each through the delivery's observer when there is one (one
 * branch, here), the store's `init` before the first claim, and a failed record logged, not thrown.
 */
export class StoreSteps {
  #ready: Promise<void> | undefined;

  constructor(
    readonly store: DedupeStore,
    readonly logger: Logger,
  ) {}

  /** A plain value stays a plain value: a synchronous store (MemoryStore) keeps its fast path. */
  call<R>(obs: DeliveryObserver | undefined, operation: StoreOperation, call: () => R): R {
    return obs === undefined ? call() : obs.store(operation, call);
  }

  /** Throws or rejects when the store does: the caller decides between 503 and processing anyway. */
  claim(
    event: AnyWebhookEvent,
    token: string,
    leaseMs: number,
    obs: DeliveryObserver | undefined,
  ): Awaitable<ClaimResult> {
    // Unnamed arrows: a `const` one gets a defineProperty per call from esbuild's keepNames (tsx).
    const ready = this.#init();
    if (ready === undefined) {
      return this.call(obs, 'claim', () => this.store.claim(event.id, token, leaseMs));
    }
    return ready.then(() => this.call(obs, 'claim', () => this.store.claim(event.id, token, leaseMs)));
  }

  /**
   * Success completes the record (kept `retainMs`); failure releases it so a redelivery runs it. With an
   * object slot (`order`), its version advances first: should the process die between the two, a
   * redelivery of this event is then stale rather than run again over a newer one. Never throws or
   * rejects (a failed record is logged); with a synchronous store (MemoryStore) it returns no promise.
   */
  finish(
    key: string,
    token: string,
    succeeded: boolean,
    retainMs: number,
    obs: DeliveryObserver | undefined,
    order?: OrderClaim,
  ): Promise<void> | undefined {
    const { store } = this;
    try {
      if (order !== undefined) {
        const ordered = succeeded
          ? this.call(obs, 'completeOrder', () =>
              store.completeOrder!(order.key, order.version, order.token, retainMs),
            )
          : this.call(obs, 'releaseOrder', () => store.releaseOrder!(order.key, order.token));
        if (isPromiseLike(ordered)) {
          return Promise.resolve(ordered).then(
            () => this.#record(key, token, succeeded, retainMs, obs),
            (e) => this.#recordFailed(key, e),
          );
        }
      }
      return this.#record(key, token, succeeded, retainMs, obs);
    } catch (e) {
      this.#recordFailed(key, e);
      return undefined;
    }
  }

  #record(
    key: string,
    token: string,
    succeeded: boolean,
    retainMs: number,
    obs: DeliveryObserver | undefined,
  ): Promise<void> | undefined {
    const { store } = this;
    try {
      const recorded = succeeded
        ? this.call(obs, 'complete', () => store.complete(key, token, retainMs))
        : this.call(obs, 'release', () => store.release(key, token));
      if (isPromiseLike(recorded)) {
        return Promise.resolve(recorded).then(
          () => undefined,
          (e) => this.#recordFailed(key, e),
        );
      }
    } catch (e) {
      this.#recordFailed(key, e);
    }
    return undefined;
  }

  /** The lease will run out on its own; a redelivery then finds the event free again. */
  #recordFailed(key: string, error: unknown): void {
    this.logger.error(`sms-webhooks: dedupe store failed to record ${key}: ${describeError(error)}`);
  }

  /** Best effort: if this fails too, the lease runs out. */
  release(key: string, token: string): Promise<unknown> {
    return Promise.resolve()
      .then(() => this.store.release(key, token))
      .catch((e) =>
        this.logger.error(`sms-webhooks: dedupe store failed to release ${key}: ${describeError(e)}`),
      );
  }

  #init(): Promise<void> | undefined {
    const { store } = this;
    if (store.init === undefined) return undefined;
    this.#ready ??= Promise.resolve(store.init()).catch((error) => {
      this.#ready = undefined; // try again on the next delivery
      throw error;
    });
    return this.#ready;
  }
}
