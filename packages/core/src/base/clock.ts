/**
 * Where the receiver's time comes from: the signature's freshness, claim leases and their renewal, waits
 * between in-process retries, body read deadlines. The system clock by default; a test passes
 * `VirtualClock` from `@sms-webhooks/core/testing` and moves time on with `advance('30m')` instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` (a timer that does not keep the process alive); returns its cancel. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The real clock: `Date.now` and unref'd timers. The default wherever a `clock` option is taken. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimer(fn: () => void, ms: number): () => void {
    const timer = setTimeout(fn, ms);
    // Deno's and the browsers' setTimeout return a number, with no unref.
    (timer as { unref?: () => void }).unref?.();
    return () => clearTimeout(timer);
  },
});

export function isClock(value: unknown): value is Clock {
  const c = value as Partial<Clock> | null;
  return typeof c?.now === 'function' && typeof c.setTimer === 'function';
}
