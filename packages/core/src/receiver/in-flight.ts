import { type Clock, systemClock } from '../base/clock.js';

export interface DrainResult {
  /** Background tasks still running when the time-out ran out, by event id. Empty when all finished. */
  unfinished: string[];
}

/** Background handler runs ('immediately' mode), so a shutdown can wait for them. */
export class InFlight {
  readonly #runs = new Map<Promise<unknown>, string>();
  #wakeWhenIdle: (() => void)[] = [];

  constructor(readonly clock: Clock = systemClock) {}

  get size(): number {
    return this.#runs.size;
  }

  /** `run` must never reject. */
  track(eventId: string, run: Promise<unknown>): void {
    this.#runs.set(run, eventId);
    void run.then(() => {
      this.#runs.delete(run);
      if (this.#runs.size === 0) for (const wake of this.#wakeWhenIdle.splice(0)) wake();
    });
  }

  /** Resolves once nothing runs, runs started while draining included; or reports what still runs. */
  async drain(timeoutMs?: number): Promise<DrainResult> {
    if (this.#runs.size === 0) return { unfinished: [] };
    const idle = new Promise<'idle'>((resolve) => this.#wakeWhenIdle.push(() => resolve('idle')));
    if (timeoutMs === undefined) {
      await idle;
      return { unfinished: [] };
    }
    let cancel = (): void => {};
    const timedOut = new Promise<'timeout'>((resolve) => {
      cancel = this.#timer(() => resolve('timeout'), timeoutMs);
    });
    try {
      if ((await Promise.race([idle, timedOut])) === 'idle') return { unfinished: [] };
      return { unfinished: [...this.#runs.values()] };
    } finally {
      cancel();
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
}

/**
 * A later turn of the event loop. Workers and edge runtimes have no setImmediate, and Next.js's edge
 * sandbox (which sets `EdgeRuntime`) defines one that throws: a zero timeout is their later turn.
 */
export function laterTurn(): Promise<void> {
  const edge = typeof (globalThis as { EdgeRuntime?: unknown }).EdgeRuntime === 'string';
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function' && !edge) setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}
