import type { Logger } from '../base/logger.js';

/** How often a summary line may follow the first line of a kind. */
export const SUMMARY_INTERVAL_MS = 10_000;

/**
 * Warnings an unauthenticated client can cause (refusals) or a sender can repeat (ignored types): the
 * first of each kind is logged in full, then at most one summary line per kind per interval; after a
 * whole interval without one, the next is logged in full again (a database down next week shows its own
 * reason, not a count pointing at last week's line). A console
 * logger writing to a pipe is synchronous, so a line per bad request would let any client drive the
 * log volume (4,546 bad requests a second once made 18,211 lines a second).
 */
export class SampledLog {
  /** Kinds logged in full and not quiet for a whole interval since. */
  readonly #logged = new Set<string>();
  /** Kinds seen since the last flush. */
  readonly #seen = new Set<string>();
  readonly #suppressed = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly logger: Logger,
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
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.flush(), this.intervalMs);
      // A summary is not a reason to keep the process alive.
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Logs one summary line per kind repeated since the last one; forgets the kinds that were quiet. */
  flush(): void {
    for (const kind of this.#logged) if (!this.#seen.has(kind)) this.#logged.delete(kind);
    this.#seen.clear();
    if (this.#logged.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    const seconds = Math.round(this.intervalMs / 1000);
    for (const [kind, count] of this.#suppressed) {
      this.logger.warn(
        `sms-webhooks: ${count} more ${kind} in the last ${seconds} s (first one logged in full)`,
      );
    }
    this.#suppressed.clear();
  }
}
