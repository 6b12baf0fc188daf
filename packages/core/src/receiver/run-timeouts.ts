import type { Clock } from '../base/clock.js';

/** `handlerTimeoutMs`' default: far beyond a sane webhook handler, and three runs fit in Lambda's 15 min. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 2 * 60 * 1000;

/** A handler run being timed; `stop` once it settles. */
export interface TimedRun {
  readonly due: number;
  readonly onTimeout: () => void;
}

/**
 * The handler time-outs of one receiver. They all have the same length, so runs time out in the order
 * they started: one timer, set for the oldest run, serves them all, and a run that ends in time costs a
 * Set entry rather than a timer of its own.
 */
export class RunTimeouts {
  readonly #running = new Set<TimedRun>();
  #armed = false;

  constructor(
    readonly ms: number,
    readonly clock: Clock,
  ) {}

  start(onTimeout: () => void): TimedRun {
    const run = { due: this.clock.now() + this.ms, onTimeout };
    this.#running.add(run);
    if (!this.#armed) this.#arm(this.ms);
    return run;
  }

  stop(run: TimedRun): void {
    this.#running.delete(run);
  }

  #arm(ms: number): void {
    this.#armed = true;
    this.clock.setTimer(this.#fire, ms);
  }

  readonly #fire = (): void => {
    this.#armed = false;
    const now = this.clock.now();
    for (const run of this.#running) {
      if (run.due > now) {
        this.#arm(run.due - now);
        return;
      }
      this.#running.delete(run);
      run.onTimeout();
    }
  };
}
