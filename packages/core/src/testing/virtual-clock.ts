import { optionError } from '@sms-webhooks/internal';
import type { Clock } from '../base/clock.js';

/** `250` (ms), `'250ms'`, `'30s'`, `'30m'`, `'1h'`, `'2d'`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds in a `Duration`; a clear TypeError for anything else. */
export function durationMs(duration: Duration): number {
  if (typeof duration === 'number') {
    if (Number.isFinite(duration) && duration >= 0) return duration;
  } else {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration);
    if (match) return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  throw optionError(
    '@sms-webhooks/core/testing',
    `a duration is a number of ms >= 0 or a string like '250ms', '30s', '30m', '1h', '2d'; got ${typeof duration === 'string' ? JSON.stringify(duration) : String(duration)}.`,
  );
}

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
}

/** Lets every promise chain that is ready run (microtasks, and callbacks queued for this turn). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Time that moves only when a test says so. Pass it where a `clock` is taken (the receiver, the
 * emulator); `advance('30m')` then fires every timer that falls due in those 30 minutes, in due order
 * (ties in the order they were set), with `now()` at each timer's due time while it runs, letting
 * promise chains progress between timers. A timer set while advancing fires in the same call when it
 * falls due within it. So a whole 1 min … 12 h retry schedule runs in milliseconds, the same way every run.
 *
 * Work the clock does not own, such as an HTTP request a timer started, is waited for when it was
 * handed to `track(promise)`: `advance` waits for tracked work before each timer and before it returns
 * (the emulator tracks each delivery attempt), so the next retry is already scheduled when it looks.
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Set<Timer>();
  readonly #work = new Set<Promise<unknown>>();

  /**
   * `start`: epoch ms, or a date; default the real time now, so an app on the real clock accepts the first
   * signatures. Give a fixed start for records that read the same on every run.
   */
  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === 'number' ? start : start.getTime();
    if (!Number.isFinite(this.#now))
      throw optionError('@sms-webhooks/core/testing', 'VirtualClock start must be a valid time.');
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer: Timer = { due: this.#now + Math.max(0, Number.isFinite(ms) ? ms : 0), seq: this.#seq++, fn };
    this.#timers.add(timer);
    return () => {
      this.#timers.delete(timer);
    };
  }

  /** Timers set and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Epoch ms of the next timer due, or undefined when none is set. */
  get nextDue(): number | undefined {
    return this.#next()?.due;
  }

  /** Work `advance` waits for before each timer and before it returns; settles either way. */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.#work.add(settled);
    void settled.then(() => this.#work.delete(settled));
  }

  /** Moves time forward by `duration`, firing every timer that falls due on the way (see the class). */
  async advance(duration: Duration): Promise<void> {
    const until = this.#now + durationMs(duration);
    await this.#settle();
    for (let timer = this.#next(); timer !== undefined && timer.due <= until; timer = this.#next()) {
      this.#timers.delete(timer);
      this.#now = Math.max(this.#now, timer.due);
      timer.fn();
      await this.#settle();
    }
    this.#now = Math.max(this.#now, until);
  }

  /** Advances to each next timer until none is left (at most `maxTimers`, against a timer that re-arms forever). */
  async runAll(maxTimers = 10_000): Promise<void> {
    await this.#settle();
    for (let fired = 0; ; fired++) {
      const timer = this.#next();
      if (timer === undefined) return;
      if (fired >= maxTimers) {
        throw new Error(
          `@sms-webhooks/core/testing: runAll fired ${maxTimers} timers and more are set; something re-arms a timer forever.`,
        );
      }
      await this.advance(Math.max(0, timer.due - this.#now));
    }
  }

  #next(): Timer | undefined {
    let next: Timer | undefined;
    for (const t of this.#timers) {
      if (!next || t.due < next.due || (t.due === next.due && t.seq < next.seq)) next = t;
    }
    return next;
  }

  /** Until no tracked work is left, with a turn for promise chains after each round. */
  async #settle(): Promise<void> {
    await turn();
    while (this.#work.size > 0) {
      await Promise.all([...this.#work]);
      await turn();
    }
  }
}
