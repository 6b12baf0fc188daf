import { type Clock, systemClock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';

/** How often a summary line may follow the first line of a kind. */
export const SUMMARY_INTERVAL_MS = 10_000;

/**
 * Warnings an unauthenticated client can cause (refusals) or a sender can repeat (ignored types): the
 * first of each kind is logged in full, then at most one summary line per kind per interval; after a
 * whole interval without one, the next is logged in full again (a database down next week shows its own
 * reason, not a count pointing at last week's line). A console
 * logger writing to a pipe is synchronous, so a line per bad request would let any client drive the
 * log volume (4,546 bad requests a second once made 18,211 lines a second). The interval runs on the
 * receiver's clock, so a test on a `VirtualClock` decides when a summary is due.
 */
export class SampledLog {
  /** Kinds logged in full and not quiet for a whole interval since. */
  readonly #logged = new Set<string>();
  /** Kinds seen since the last flush. */
  readonly #seen = new Set<string>();
  readonly #suppressed = new Map<string, number>();
  /** Cancels the pending flush; set while any kind is logged or counted. */
  #cancel: (() => void) | undefined;

  constructor(
    readonly logger: Logger,
    readonly clock: Clock = systemClock,
    readonly intervalMs = SUMMARY_INTERVAL_MS,
  ) {}

  /** `message` is built only when it is logged: most calls only count. */
  warn(kind: string, message: () => string): void {
    this.#seen.add(kind);
    if (!this.#logged.has(kind)) {
      this.#logged.add(kind);
      this.logger.warn(`sms-webhooks: ${message()}`);
    } else {
      this.#suppressed.set(kind, (this.#suppressed.get(kind) ?? 0) + 1);
    }
    // The clock's timers do not keep the process alive: a summary is no reason to.
    if (this.#cancel === undefined) this.#arm();
  }

  #arm(): void {
    this.#cancel = this.clock.setTimer(() => {
      this.#cancel = undefined;
      this.flush();
    }, this.intervalMs);
  }

  /** Logs one summary line per kind repeated since the last one; forgets the kinds that were quiet. */
  flush(): void {
    for (const kind of this.#logged) if (!this.#seen.has(kind)) this.#logged.delete(kind);
    this.#seen.clear();
    if (this.#logged.size === 0) {
      this.#cancel?.();
      this.#cancel = undefined;
    } else if (this.#cancel === undefined) this.#arm();
    const seconds = Math.round(this.intervalMs / 1000);
    for (const [kind, count] of this.#suppressed) {
      this.logger.warn(
        `sms-webhooks: ${count} more ${kind} in the last ${seconds} s (first one logged in full)`,
      );
    }
    this.#suppressed.clear();
  }
}
