import { type Clock, systemClock } from '../base/clock.js';
import { describeError } from '../base/describe-error.js';
import type { Logger } from '../base/logger.js';
import type { DedupeStore } from './dedupe-store.js';

/** A claim being kept alive; `release` once its handlers are done. */
export interface Held {
  readonly key: string;
  readonly token: string;
  release(): void;
}

/**
 * Keeps the claims of running handlers alive: without it, a handler that runs longer than `leaseMs`
 * loses its claim and a redelivery runs the same event a second time, at the same time. Each claim is
 * renewed every third of the lease until released. When the process dies nothing renews, and the lease
 * runs out, so a redelivery runs the event.
 */
export class LeaseKeeper {
  readonly #everyMs: number;

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
    let released = false;
    let cancel: () => void;
    const tick = () => {
      cancel = this.clock.setTimer(tick, this.#everyMs);
      void this.#renew(key, token, () => released).then((kept) => kept || held.release());
    };
    const held: Held = {
      key,
      token,
      release() {
        released = true;
        cancel();
      },
    };
    cancel = this.clock.setTimer(tick, this.#everyMs);
    return held;
  }

  /** Kept for callers that hold an optional claim. */
  release(held: Held | undefined): void {
    held?.release();
  }

  /** False when the claim is gone for good; a failed call is tried again on the next tick. */
  async #renew(key: string, token: string, released: () => boolean): Promise<boolean> {
    try {
      if ((await this.store.renew!(key, token, this.leaseMs)) || released()) return true;
      this.logger.error(
        `sms-webhooks: the claim on ${key} ran out while its handlers ran (the lease is ${this.leaseMs} ms); a redelivery may run it again. Raise leaseMs or check the store.`,
      );
      return false;
    } catch (error) {
      // The lease still has two thirds to run.
      this.logger.error(`sms-webhooks: renewing the claim on ${key} failed: ${describeError(error)}`);
      return true;
    }
  }
}
