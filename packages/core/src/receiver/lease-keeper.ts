import { type Clock, systemClock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import type { DedupeStore } from './dedupe-store.js';

/** A claim being kept alive; `release` once its handlers are done. */
export interface Held {
  /** The claimed store key. */
  readonly key: string;
  /** The claim's token. */
  readonly token: string;
  /** Stops renewing this claim (the caller completes or releases it in the store). */
  release(): void;
}

/**
 * Keeps the claims of running handlers alive: without it, a handler that runs longer than `leaseMs`
 * loses its claim and a redelivery runs the same event a second time, at the same time. One timer renews
 * every held claim each third of the lease, and stops once nothing is held; a claim held just before a
 * tick is renewed early, which costs a store call and nothing else. When the process dies nothing
 * renews, and the lease runs out, so a redelivery runs the event.
 */
export class LeaseKeeper {
  readonly #everyMs: number;
  readonly #held = new Set<Hold>();
  #ticking = false;

  constructor(
    readonly store: Pick<DedupeStore, 'renew'>,
    readonly leaseMs: number,
    readonly logger: Logger,
    readonly clock: Clock = systemClock,
  ) {
    this.#everyMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  /** Undefined when the store cannot renew (a third-party store without `renew`). */
  hold(key: string, token: string): Held | undefined {
    if (this.store.renew === undefined) return undefined;
    const held = new Hold(key, token, this.#held);
    this.#held.add(held);
    if (!this.#ticking) {
      this.#ticking = true;
      this.clock.setTimer(this.#tick, this.#everyMs);
    }
    return held;
  }

  /** Kept for callers that hold an optional claim. */
  release(held: Held | undefined): void {
    held?.release();
  }

  readonly #tick = (): void => {
    if (this.#held.size === 0) {
      this.#ticking = false;
      return;
    }
    this.clock.setTimer(this.#tick, this.#everyMs);
    for (const held of this.#held) void this.#renew(held);
  };

  /** A failed call is tried again on the next tick; a claim gone for good is let go. */
  async #renew(held: Hold): Promise<void> {
    const { key, token } = held;
    try {
      if ((await this.store.renew!(key, token, this.leaseMs)) || !this.#held.has(held)) return;
      this.logger.error(
        `sms-webhooks: the claim on ${key} ran out while its handlers ran (the lease is ${this.leaseMs} ms); a redelivery may run it again. Raise leaseMs or check the store.`,
      );
      held.release();
    } catch (error) {
      // The lease still has two thirds to run.
      this.logger.error(`sms-webhooks: renewing the claim on ${key} failed: ${describeError(error)}`);
    }
  }
}

class Hold implements Held {
  constructor(
    readonly key: string,
    readonly token: string,
    readonly held: Set<Hold>,
  ) {}

  release(): void {
    this.held.delete(this);
  }
}
