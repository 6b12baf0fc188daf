import { type Clock, systemClock } from '../verify/clock.js';
import { type Linked, LinkedList } from './linked-list.js';

export interface DrainResult {
  /** Background tasks still running when the time-out ran out, by event id. Empty when all finished. */
  unfinished: string[];
}

/** One accepted event whose handlers run after the ack. */
export interface BackgroundRun extends Linked<BackgroundRun> {
  readonly eventId: string;
  /**
   * Resolves (never rejects) with the run's handler error, or undefined, when it finishes; made only
   * for a caller that needs it (waitUntil).
   */
  done: Promise<unknown> | undefined;
  resolve: ((outcome: unknown) => void) | undefined;
}

/**
 * Background handler runs ('immediately' mode), so shutdown can wait for them. Runs are plain records in
 * a list, not promises with reactions attached: this is bookkeeping on every accepted event.
 */
export class InFlight {
  readonly #runs = new LinkedList<BackgroundRun>();
  #wakeWhenIdle: (() => void)[] = [];

  constructor(readonly clock: Clock = systemClock) {}

  get size(): number {
    return this.#runs.size;
  }

  start(eventId: string, withPromise: boolean): BackgroundRun {
    const run: BackgroundRun = {
      eventId,
      done: undefined,
      resolve: undefined,
      prev: undefined,
      next: undefined,
      listed: false,
    };
    if (withPromise) {
      run.done = new Promise<unknown>((resolve) => {
        run.resolve = resolve;
      });
    }
    this.#runs.push(run);
    return run;
  }

  /** A second call for the same run changes nothing. */
  finish(run: BackgroundRun, outcome: unknown): void {
    if (!this.#runs.remove(run)) return;
    run.resolve?.(outcome);
    if (this.#runs.size === 0 && this.#wakeWhenIdle.length > 0) {
      for (const wake of this.#wakeWhenIdle.splice(0)) wake();
    }
  }

  /**
   * The drain's time-out keeps the process alive (a shutdown is waiting on it), unlike the clock's own
   * timers; a test's clock drives it like any other.
   */
  #timer(fn: () => void, ms: number): () => void {
    if (this.clock !== systemClock) return this.clock.setTimer(fn, ms);
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  }

  /** Resolves once nothing runs, runs started while draining included; or reports what still runs. */
  async drain(timeoutMs?: number): Promise<DrainResult> {
    if (this.#runs.size === 0) return { unfinished: [] };
    let cancel: (() => void) | undefined;
    const idle = new Promise<'idle'>((resolve) => {
      this.#wakeWhenIdle.push(() => resolve('idle'));
    });
    const timedOut =
      timeoutMs === undefined
        ? undefined
        : new Promise<'timeout'>((resolve) => {
            cancel = this.#timer(() => resolve('timeout'), timeoutMs);
          });
    try {
      const outcome = await (timedOut ? Promise.race([idle, timedOut]) : idle);
      if (outcome === 'timeout') return { unfinished: this.#runs.toArray().map((run) => run.eventId) };
      return { unfinished: [] };
    } finally {
      cancel?.();
    }
  }
}
