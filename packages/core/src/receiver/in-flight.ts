import { type Clock, systemClock } from '../verify/clock.js';

export interface DrainResult {
  /** Background tasks still running when the time-out ran out, by event id. Empty when all finished. */
  unfinished: string[];
}

/** One accepted event whose handlers run after the ack. */
export interface BackgroundRun {
  readonly eventId: string;
  /**
   * Resolves (never rejects) with the run's handler error, or undefined, when it finishes; made only
   * for a caller that needs it (waitUntil).
   */
  done: Promise<unknown> | undefined;
  resolve: ((outcome: unknown) => void) | undefined;
  /** Neighbours in the list of runs in progress. */
  prev: BackgroundRun | undefined;
  next: BackgroundRun | undefined;
}

/**
 * Background handler runs ('immediately' mode), so shutdown can wait for them. Runs are plain records
 * in a doubly linked list, not promises with reactions attached, nor Set entries (a Set that empties and
 * fills with every request rehashes as it shrinks and grows): this is bookkeeping on every accepted event.
 */
export class InFlight {
  #head: BackgroundRun | undefined;
  #size = 0;
  #wakeWhenIdle: (() => void)[] = [];

  constructor(readonly clock: Clock = systemClock) {}

  get size(): number {
    return this.#size;
  }

  start(eventId: string, withPromise: boolean): BackgroundRun {
    const run: BackgroundRun = {
      eventId,
      done: undefined,
      resolve: undefined,
      prev: undefined,
      next: this.#head,
    };
    if (withPromise) {
      run.done = new Promise<unknown>((resolve) => {
        run.resolve = resolve;
      });
    }
    if (this.#head !== undefined) this.#head.prev = run;
    this.#head = run;
    this.#size++;
    return run;
  }

  finish(run: BackgroundRun, outcome: unknown): void {
    if (run.prev === undefined && this.#head !== run) return; // finished already
    if (run.prev !== undefined) run.prev.next = run.next;
    else this.#head = run.next;
    if (run.next !== undefined) run.next.prev = run.prev;
    run.prev = run.next = undefined;
    this.#size--;
    run.resolve?.(outcome);
    if (this.#size === 0 && this.#wakeWhenIdle.length > 0) {
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

  /** The runs in progress, oldest first. */
  #eventIds(): string[] {
    const ids: string[] = [];
    for (let run = this.#head; run !== undefined; run = run.next) ids.push(run.eventId);
    return ids.reverse();
  }

  /** Resolves once nothing runs, runs started while draining included; or reports what still runs. */
  async drain(timeoutMs?: number): Promise<DrainResult> {
    if (this.#size === 0) return { unfinished: [] };
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
      if (outcome === 'timeout') return { unfinished: this.#eventIds() };
      return { unfinished: [] };
    } finally {
      cancel?.();
    }
  }
}
