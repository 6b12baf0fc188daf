import { type Clock, systemClock } from '../verify/clock.js';
import type { Logger } from '../verify/logger.js';
import type { DedupeStore } from './dedupe-store.js';
import { type Linked, LinkedList } from './linked-list.js';

/** A claim being kept alive. */
export interface Held extends Linked<Held> {
  key: string;
  token: string;
  /** The keeper's tick when the claim was taken: it is renewed from the next tick on. */
  since: number;
}

/**
 * Keeps the claims of running handlers alive: without it, a handler that runs longer than `leaseMs`
 * loses its claim and a redelivery runs the same event a second time, at the same time. One shared
 * timer ticks every third of the lease and renews each claim taken before that tick, so a claim is
 * renewed at most a third of the lease after it was last set; most handlers finish before and cost
 * only a list entry. When the process dies nothing renews, and the lease runs out as
 * before, so a redelivery runs the event.
 */
export class LeaseKeeper {
  readonly #held = new LinkedList<Held>();
  readonly #everyMs: number;
  #tick = 0;
  #cancel: (() => void) | undefined;

  constructor(
    readonly store: DedupeStore,
    readonly leaseMs: number,
    readonly logger: Logger,
    readonly clock: Clock = systemClock,
  ) {
    this.#everyMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  /** Undefined when the store cannot renew (a third-party store without `renew`). */
  hold(key: string, token: string): Held | undefined {
    if (this.store.renew === undefined) return undefined;
    const held: Held = { key, token, since: this.#tick, prev: undefined, next: undefined, listed: false };
    this.#held.push(held);
    if (this.#cancel === undefined) this.#schedule();
    return held;
  }

  release(held: Held | undefined): void {
    if (held !== undefined) this.#held.remove(held);
  }

  #schedule(): void {
    this.#cancel = this.clock.setTimer(() => this.#renewDue(), this.#everyMs);
  }

  #renewDue(): void {
    if (this.#held.size === 0) {
      this.#cancel = undefined;
      return;
    }
    this.#schedule();
    const tick = this.#tick++;
    for (const held of this.#held.toArray()) {
      if (held.since <= tick) void this.#renew(held);
    }
  }

  async #renew(held: Held): Promise<void> {
    try {
      const renewed = await this.store.renew!(held.key, held.token, this.leaseMs);
      if (!renewed && this.#held.remove(held)) {
        this.logger.error(
          `sms-webhooks: the claim on ${held.key} ran out while its handlers ran (the lease is ${this.leaseMs} ms); a redelivery may run it again. Raise leaseMs or check the store.`,
        );
      }
    } catch (error) {
      // The next tick tries again; the lease still has two thirds to run.
      this.logger.error(`sms-webhooks: renewing the claim on ${held.key} failed: ${String(error)}`);
    }
  }
}
